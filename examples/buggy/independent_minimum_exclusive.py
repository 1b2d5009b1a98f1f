"""independent_minimum_exclusive: minimum is compared as if it were exclusiveMinimum (a value equal to the
minimum is refused)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''if "minimum" in schema and inst < schema["minimum"]:'''
NEW = '''if "minimum" in schema and inst <= schema["minimum"]:'''
patch.exec_python(__file__, "schema.py", OLD, NEW)
