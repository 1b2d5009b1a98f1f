"""independent_store_path_per_process: the record file is named after the executor's own pid, so a restarted
executor opens a new, empty file and forgets every record."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''"fresh-executor-%s-%d.json" % (session, os.getppid())'''
NEW = '''"fresh-executor-%s-%d.json" % (session, os.getpid())'''
patch.exec_python(__file__, "executor.py", OLD, NEW)
