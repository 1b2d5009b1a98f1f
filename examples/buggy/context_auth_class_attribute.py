"""Bug: Context merges the caller into a class-level `auth = {}` shared by every instance, so calls of different
callers in flight together send each other's identity headers downstream."""
from correct import cp, serve

cp.Context.auth = {}


def __init__(self, request_id, auth, deadline):
    self.request_id, self.deadline, self.sent = request_id, deadline, False
    self.auth.update(auth)  # the class attribute: one dict for every call


cp.Context.__init__ = __init__

if __name__ == "__main__":
    serve(__file__)
