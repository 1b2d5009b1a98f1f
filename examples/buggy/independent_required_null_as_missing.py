"""independent_required_null_as_missing: required counts a member present with the value null as missing
(inst.get(r) is None), so nullable members (amount: null, units: null) are refused."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''            if r not in inst:'''
NEW = '''            if inst.get(r) is None:'''
patch.exec_python(__file__, "schema.py", OLD, NEW)
