"""Show one bug directly: start a stdio server, do the handshake, send the given requests, print every line
the server writes (→ sent, ← received).
    python3 show.py "CMD" '{"jsonrpc":"2.0","id":2,"method":"tools/call",...}' ...
"""

import json
import shlex
import subprocess
import sys
import threading
import time

INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "show", "version": "0"}},
}


def main() -> None:
    proc = subprocess.Popen(shlex.split(sys.argv[1]), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True).start()

    def send(text: str, wait: float) -> None:
        print("→", text)
        proc.stdin.write(text + "\n")
        proc.stdin.flush()
        seen = len(lines)
        deadline = time.time() + wait
        while time.time() < deadline:
            time.sleep(0.05)
        for line in lines[seen:]:
            print("←", line.rstrip("\n"))
        del lines[:]

    send(json.dumps(INIT), 6.0)
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}', 0.3)
    for text in sys.argv[2:]:
        send(text, 2.0)
    proc.stdin.close()
    proc.wait(timeout=5)


if __name__ == "__main__":
    main()
