"""Bug: read_body catches Exception and keeps what arrived, swallowing its own Lost for a success body that broke
off or passed the limit: the partial body is then answered output_invalid (unreadable), not timeout_unknown."""
from correct import cp, serve


def read_body(response, success, sock, ctx):
    chunks = []
    try:
        size = 0
        while size <= cp.MAX_RESPONSE_BYTES:
            sock.settimeout(max(ctx.remaining_ms(), 1) / 1000)
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
    except Exception:  # the bug: too broad; keep what arrived
        if success:
            return b"".join(chunks)
    return b""


cp.read_body = read_body

if __name__ == "__main__":
    serve(__file__)
