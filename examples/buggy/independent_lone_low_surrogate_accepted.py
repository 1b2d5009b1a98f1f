"""independent_lone_low_surrogate_accepted: a high-surrogate escape must be followed by a low one, but a low
surrogate escape on its own (\\udc00) is accepted as a character."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''                    elif 0xDC00 <= cp <= 0xDFFF:
                        raise _json_err(data, i, "lone_surrogate")
                    else:'''
NEW = '''                    else:'''
patch.exec_python(__file__, "strictjson.py", OLD, NEW)
