"""independent_status_line_three_fields: the status line is unpacked as exactly three fields (split on every
space), so an answer whose reason phrase has a space ("404 Not Found", "429 Too Many Requests", "503 Service
Unavailable") raises ValueError and is taken for a lost connection."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            return HttpResult("lost")
        status = int(parts[1])'''
NEW = '''        version, code, reason = status_line.decode("latin-1").rstrip("\\r\\n").split(" ")
        if not version.startswith("HTTP/"):
            return HttpResult("lost")
        status = int(code)'''
patch.exec_python(__file__, "executor.py", OLD, NEW)
