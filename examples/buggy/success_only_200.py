"""Bug: only status 200 counts as success; 201/202/204 fall through to a refusal."""
from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "call_tool", "if 200 <= status < 300:", "if status == 200:")

if __name__ == "__main__":
    serve(__file__)
