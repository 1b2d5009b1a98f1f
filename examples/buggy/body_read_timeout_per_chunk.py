"""Bug: the answer's body is read with the socket timeout the connection was opened with (the time left when the
request was sent), applied to each read, instead of the time left before each read: a body that trickles in
outlasts the call's deadline.

Written blind in round 11 (examples/buggy/BLIND11.md).
"""
import http.client

from correct import cp, serve


def read_body(response, success, sock, ctx):
    try:
        chunks, size = [], 0
        while size <= cp.MAX_RESPONSE_BYTES:
            # BUG(body_read_timeout_per_chunk): no sock.settimeout(time left) here; each read keeps the
            # connection's timeout
            chunk = response.read1(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
        announced = response.getheader("content-length", "")
        if len(data) <= cp.MAX_RESPONSE_BYTES and (not announced.isdigit() or len(data) == int(announced)):
            return data
        if success:
            raise cp.Lost()
    except (OSError, http.client.HTTPException):
        if success:
            raise
    return b""


cp.read_body = read_body

if __name__ == "__main__":
    serve(__file__)
