"""The program ssh runs as `SSH_ASKPASS` (docs/decisions.md, "Remote hosts"): it hands ssh's
prompt to the host that started that ssh, over the private socket and with the key its
environment names, and prints the answer for ssh. Standard library only: it starts in a fresh
interpreter for each prompt (or as the packaged app's hidden `askpass` command)."""

from __future__ import annotations

import json
import os
import socket
import sys

SOCKET_ENV = "HARNESSDESK_ASKPASS_SOCKET"
KEY_ENV = "HARNESSDESK_ASKPASS_KEY"
CLIENT_BOUND = 310.0
"""Seconds it waits for the answer (the host's own bound is 300 s)."""


def client_main(argv: list[str]) -> int:
    """ssh's askpass: the prompt in argv[0]; the answer on stdout, exit 0; nothing answered: 1."""
    path, key = os.environ.get(SOCKET_ENV), os.environ.get(KEY_ENV)
    if not path or not key:
        return 1
    prompt = argv[0] if argv else ""
    echo = os.environ.get("SSH_ASKPASS_PROMPT", "") == "confirm"
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CLIENT_BOUND)
            sock.connect(path)
            sock.sendall((json.dumps({"key": key, "prompt": prompt, "echo": echo}) + "\n").encode())
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    except OSError:
        return 1
    try:
        answer = json.loads(data or b"{}").get("answer")
    except ValueError:
        return 1
    if not isinstance(answer, str):
        return 1
    sys.stdout.write(answer + "\n")
    return 0
