"""A tiny stdio MCP server that misbehaves on purpose (tests of one clear error per fault).

faulty.py crash     serves, then exits with a message on stderr at its first tools/call
faulty.py hang      never answers initialize
faulty.py flood     writes 4 MiB to stderr, then exits
faulty.py garbage   answers every request with a line that is not JSON
"""

from __future__ import annotations

import json
import sys
import time

MODE = sys.argv[1]
TOOL = {"name": "poke", "description": "pokes", "inputSchema": {"type": "object", "properties": {}}}


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    tools = [TOOL]
    if MODE == "flood":
        chunk = "x" * 1023 + "\n"
        for _ in range(4096):
            sys.stderr.write(chunk)
        sys.stderr.write("FLOOD-END\n")
        sys.stderr.flush()
        sys.exit(3)
    for line in sys.stdin:
        msg = json.loads(line)
        if "id" not in msg:
            continue
        if MODE == "hang":
            time.sleep(3600)
        if MODE == "garbage":
            sys.stdout.write("this is not json {\n")
            sys.stdout.flush()
            continue
        method = msg.get("method")
        if method == "initialize":
            result = {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "faulty", "version": "1"},
            }
        elif method == "tools/list":
            result = {"tools": tools}
        elif method == "tools/call" and MODE == "grow":
            tools.append({**TOOL, "name": "extra", "description": "appeared later"})
            send(
                {
                    "jsonrpc": "2.0",
                    "id": msg["id"],
                    "result": {"content": [{"type": "text", "text": "grown"}]},
                }
            )
            send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            continue
        elif method == "tools/call":
            sys.stderr.write("faulty: boom, going down\n")
            sys.stderr.flush()
            sys.exit(7)
        else:
            result = {}
        send({"jsonrpc": "2.0", "id": msg["id"], "result": result})


main()
