"""independent_unknown_escape_literal: an unknown escape (\\q, \\', \\x) is accepted as the character after the
backslash instead of refused as invalid_json."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''                else:
                    raise _json_err(data, i + 1, None)
                seg_start = i'''
NEW = '''                else:
                    buf.append(chr(e))
                    i += 2
                seg_start = i'''
patch.exec_python(__file__, "strictjson.py", OLD, NEW)
