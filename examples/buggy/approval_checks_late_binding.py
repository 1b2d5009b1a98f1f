"""Bug: the approval's subject/tenant comparisons are lambdas built in a loop (late binding), so both compare
tenant_id and an approval granted to another subject of the same tenant passes."""
from correct import cp, changed_copy, serve

changed_copy(cp.Executor, "check_approval",
             '''        for field, matches in (("subject_id", approval["subject_id"] == auth["subject_id"]),
                               ("tenant_id", approval["tenant_id"] == auth["tenant_id"]),''',
             '''        same = [(f, lambda: approval[f] == auth[f]) for f in ("subject_id", "tenant_id")]
        for field, matches in ((same[0][0], same[0][1]()),
                               (same[1][0], same[1][1]()),''')

if __name__ == "__main__":
    serve(__file__)
