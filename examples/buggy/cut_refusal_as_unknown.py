"""Buggy executor: a cut or oversized body is a lost connection, whatever the status.

Changed place: `read_body` (examples/python/callproof_executor.py). The example keeps a non-success status as a
definite answer and drops a body it cannot read; here any body that breaks off or passes the limit raises, so a
503 or 422 whose body is cut becomes `timeout_unknown` (side effects) or `no_answer` (reads).
Where teams ship it: generic HTTP wrappers that map IncompleteRead / a short body to "connection lost" before
anyone looks at the status line.
"""

from correct import cp, changed_copy, serve

changed_copy(cp, "read_body",
             '''        if success:
            raise Lost()
    except (OSError, http.client.HTTPException):
        if success:
            raise''',
             '''        raise Lost()  # BUG: a broken body is a lost connection, whatever the status said
    except (OSError, http.client.HTTPException):
        raise''')

if __name__ == "__main__":
    serve(__file__)
