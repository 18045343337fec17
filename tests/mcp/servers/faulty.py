"""A tiny stdio MCP server that misbehaves on purpose (tests of one clear error per fault).

faulty.py crash     serves, then exits with a message on stderr at its first tools/call
faulty.py hang      never answers initialize
faulty.py flood     writes 4 MiB to stderr, then exits
faulty.py garbage   answers every request with a line that is not JSON
faulty.py resources serves resources over two pages (text, large text, a blob, one that fails to
                    read); its tools/call adds one and sends resources/list_changed
faulty.py reshang   serves tools, but never answers resources/list
"""

from __future__ import annotations

import base64
import json
import sys
import time

MODE = sys.argv[1]
TOOL = {"name": "poke", "description": "pokes", "inputSchema": {"type": "object", "properties": {}}}


PAGES = [
    [
        {"uri": "faulty://notes/readme", "name": "readme", "title": "The read-me", "mimeType": "text/plain"},
        {"uri": "faulty://notes/big", "name": "bigdoc", "mimeType": "text/plain"},
    ],
    [
        {"uri": "faulty://pics/dot.png", "name": "dotpicture", "mimeType": "image/png"},
        {"uri": "faulty://broken", "name": "brokenthing", "mimeType": "text/plain"},
    ],
]
BLOB = base64.b64encode(b"\x89PNG" + bytes(300)).decode()


def read(uri: str) -> dict | None:
    if uri == "faulty://notes/readme":
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "RESOURCE-README-TEXT line"}]}
    if uri == "faulty://notes/big":
        return {"contents": [{"uri": uri, "mimeType": "text/plain", "text": "b" * (100 * 1024)}]}
    if uri == "faulty://pics/dot.png":
        return {"contents": [{"uri": uri, "mimeType": "image/png", "blob": BLOB}]}
    if uri == "faulty://later":
        return {"contents": [{"uri": uri, "text": "added later"}]}
    return None


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
        if MODE in ("resources", "reshang") and method not in ("initialize", "tools/list"):
            resources_mode(msg, method)
            continue
        if method == "initialize":
            caps: dict = (
                {"tools": {}, "resources": {"listChanged": True}}
                if MODE in ("resources", "reshang")
                else {"tools": {}}
            )
            result = {
                "protocolVersion": msg["params"]["protocolVersion"],
                "capabilities": caps,
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


def resources_mode(msg: dict, method: str | None) -> None:
    if method == "resources/list" and MODE == "reshang":
        time.sleep(3600)
    if method == "resources/list":
        page = int((msg.get("params") or {}).get("cursor") or 0)
        result: dict = {"resources": PAGES[page]}
        if page + 1 < len(PAGES):
            result["nextCursor"] = str(page + 1)
    elif method == "resources/read":
        found = read(msg["params"]["uri"])
        if found is None:
            error = {"code": -32002, "message": f"no such resource: {msg['params']['uri']}"}
            send({"jsonrpc": "2.0", "id": msg["id"], "error": error})
            return
        result = found
    elif method == "tools/call":
        PAGES[-1].append({"uri": "faulty://later", "name": "laterone"})
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"content": [{"type": "text", "text": "added"}]}})
        send({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"})
        return
    else:
        result = {}
    send({"jsonrpc": "2.0", "id": msg["id"], "result": result})


main()
