"""Correct variant: every downstream request also says `Connection: close` (the example closes each connection
anyway). protocol.md's "Every request carries:" table lists the headers asked for; others are not forbidden."""
import correct
from correct import cp

correct.changed_copy(cp.Downstream, "headers", '"X-Subject-Id": ctx.auth["subject_id"]}',
                     '"X-Subject-Id": ctx.auth["subject_id"], "Connection": "close"}')

if __name__ == "__main__":
    correct.serve(__file__)
