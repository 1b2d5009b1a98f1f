"""Correct variant: POST and PUT requests carry `Expect: 100-continue`, the body sent at once without waiting
for the interim answer (RFC 9110 §10.1.1 allows it), as curl and .NET HttpClient do.

docs/protocol.md: "Every request carries:" (the required headers; none other forbidden) and "`POST` and `PUT`
send the arguments as a JSON body".
"""

import correct
from correct import cp

_headers = cp.Downstream.headers


def headers(self, method, ctx, key, remaining):
    sent = _headers(self, method, ctx, key, remaining)
    if method in ("POST", "PUT"):
        sent["Expect"] = "100-continue"
    return sent


cp.Downstream.headers = headers

if __name__ == "__main__":
    correct.serve(__file__)
