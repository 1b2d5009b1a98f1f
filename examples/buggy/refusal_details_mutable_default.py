"""Bug: Refusal's details default is a mutable default argument shared by every refusal of the process.

`def __init__(self, code, message, details={}, **more)`: `details.update(more)` writes into the one default dict,
so keys leak from one error envelope into the next and stored outcomes change under later refusals.
"""
from correct import cp, serve


def __init__(self, code, message, details={}, **more):  # noqa: B006 (the bug)
    Exception.__init__(self, message)
    details.update(more)
    self.code, self.message, self.details = code, message, details


cp.Refusal.__init__ = __init__

if __name__ == "__main__":
    serve(__file__)
