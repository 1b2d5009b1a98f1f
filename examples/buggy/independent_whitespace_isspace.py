"""independent_whitespace_isspace: whitespace between tokens is what bytes.isspace() says (vertical tab and form
feed too), not RFC 8259's space, tab, newline and carriage return."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''WS = b" \\t\\n\\r"'''
NEW = '''WS = b" \\t\\n\\r\\x0b\\x0c"'''
patch.exec_python(__file__, "strictjson.py", OLD, NEW)
