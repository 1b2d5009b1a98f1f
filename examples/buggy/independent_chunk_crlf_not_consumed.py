"""independent_chunk_crlf_not_consumed: the chunked reader does not consume the CRLF after a chunk's data, so
the next size line reads empty, is taken as the last chunk (size 0), and a body of several chunks is cut to its
first."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "independent"))
import patch  # noqa: E402

OLD = '''                    chunks.append(await reader.readexactly(size))
                    await reader.readline()'''
NEW = '''                    chunks.append(await reader.readexactly(size))'''
patch.exec_python(__file__, "executor.py", OLD, NEW)
