"""Findings 2, 4 and the token-file/--open items of 8: the token and the fence.

- 2: the token cookie reached every 127.0.0.1 port; now no cookie authorises anything and the
  fence never parses cookies (a malformed one of another app cannot log the user out).
- 4: `serve --host 0.0.0.0` bound every interface and the privileged gate trusted the Host
  header alone; now non-loopback binds need `--allow-remote`, and privilege also needs a
  loopback peer address and no trusted non-loopback name.
- 8: `--token-file` trusted any file; `serve --open` put the token on a browser command line.
"""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from contract.methods import SESSION_LIST, SETTINGS_DESCRIBE, AnyMethod
from host.server.binding import load_or_mint_token
from host.server.fence import LoopbackFence, peer_is_loopback
from tests.api.support import cli_env, harnessdesk, run_main, start_serve
from tests.support.scripted_llm import ScriptedLlmServer

JSON = {"content-type": "application/json"}


def envelope(method: AnyMethod, payload: dict[str, Any] | None = None) -> bytes:
    body = {"type": "client-request", "rpcId": "r-1", "method": method.key, "payload": payload or {}}
    return json.dumps(body).encode()


def provider(llm: ScriptedLlmServer) -> list[str]:
    return ["--provider", "openai-compatible", "--base-url", llm.base_url, "--model", "m"]


def test_cookies_never_authorise_and_a_malformed_one_changes_nothing(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    served = start_serve(tmp_path / "data", *provider(llm), cwd=tmp_path)
    try:
        bearer = {**JSON, "authorization": f"Bearer {served.token}"}
        malformed = [
            'other_app="unterminated; x=\x7f; ;;=;',
            "harnessdesk_token=wrong",
            f"a=1; harnessdesk_token={served.token}x; b",
        ]
        with httpx.Client(base_url=served.base_url, trust_env=False) as http:
            for cookie in malformed:
                ok = http.post(
                    "/api/session.list",
                    content=envelope(SESSION_LIST),
                    headers={**bearer, "cookie": cookie},
                )
                assert ok.status_code == 200, cookie  # another app's cookie does not log the user out
            only_cookie = {**JSON, "cookie": f"harnessdesk_token={served.token}"}
            assert (
                http.post(
                    "/api/session.list", content=envelope(SESSION_LIST), headers=only_cookie
                ).status_code
                == 401
            )
            link = http.get(f"/?token={served.token}")
            assert link.status_code == 200
            assert all(served.token not in c for c in link.headers.get_list("set-cookie"))
    finally:
        served.stop()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10", "example.com"])
def test_a_non_loopback_bind_is_refused(host: str, tmp_path: Path) -> None:
    ran = run_main("serve", "--host", host, "--data-dir", str(tmp_path / "d"))
    assert ran.returncode == 2
    assert "not a loopback address" in ran.stderr and len(ran.stderr.strip().splitlines()) == 1


def _own_address() -> str | None:
    """A non-loopback IPv4 address of this machine, if it has one."""
    candidates: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks a route
            candidates.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        candidates += [
            str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
        ]
    except OSError:
        pass
    return next((c for c in candidates if not c.startswith("127.")), None)


def test_allow_remote_warns_and_keeps_privileged_methods_on_this_machine(
    tmp_path: Path, llm: ScriptedLlmServer
) -> None:
    address = _own_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address")
    command = [
        *harnessdesk(),
        "serve",
        "--host",
        "0.0.0.0",
        "--allow-remote",
        "--data-dir",
        str(tmp_path / "d"),
    ]
    proc = subprocess.Popen(
        [*command, *provider(llm)],
        cwd=tmp_path,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        first = proc.stdout.readline()
        port = int(first.rsplit(":", 1)[1].split("/", 1)[0])
        token = first.strip().rsplit("token=", 1)[1]
        bearer = {**JSON, "authorization": f"Bearer {token}"}
        settings = envelope(SETTINGS_DESCRIBE)
        with httpx.Client(trust_env=False) as http:
            # from the network, pretending to be local: the API, but no settings or credentials
            remote = f"http://{address}:{port}"
            forged = {**bearer, "host": f"localhost:{port}"}
            assert (
                http.post(
                    f"{remote}/api/session.list", content=envelope(SESSION_LIST), headers=forged
                ).status_code
                == 200
            )
            refused = http.post(f"{remote}/api/settings.describe", content=settings, headers=forged)
            assert refused.status_code == 403
            assert "sk-" not in refused.text
            local = http.post(
                f"http://127.0.0.1:{port}/api/settings.describe", content=settings, headers=bearer
            )
            assert local.status_code == 200 and local.json()["result"]["ok"] is True
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    assert "WARNING" in err and "0.0.0.0" in err


def _scope(
    client: tuple[str, int] | None, host: str = "127.0.0.1:1", path: str = "/api/settings.describe"
) -> dict[str, Any]:
    headers = [(b"host", host.encode()), (b"authorization", b"Bearer " + b"t" * 20)]
    return {"type": "http", "path": path, "headers": headers, "client": client, "scheme": "http"}


def test_privilege_needs_a_loopback_peer_and_no_trusted_name() -> None:
    fence = LoopbackFence(lambda *a: None, token="t" * 20)  # type: ignore[arg-type]
    assert fence.refusal(_scope(("127.0.0.1", 5))) is None
    assert fence.refusal(_scope(("::1", 5), host="[::1]:1")) is None
    assert fence.refusal(_scope(("::ffff:127.0.0.1", 5))) is None
    for peer in (("192.168.1.20", 5), ("::ffff:10.0.0.1", 5), None):
        assert fence.refusal(_scope(peer)) == (
            403,
            "This method is only available to a browser on this machine",
        )
        assert fence.refusal(_scope(peer, path="/api/session.list")) is None  # the API itself stays
    trusting = LoopbackFence(lambda *a: None, token="t" * 20, trusted_hosts=["box.lan"])  # type: ignore[arg-type]
    assert trusting.refusal(_scope(("127.0.0.1", 5)))[0] == 403  # type: ignore[index]
    assert not peer_is_loopback({"client": None}) and peer_is_loopback({"client": ("127.0.0.9", 1)})


def test_the_token_file_must_be_private_and_not_a_link(tmp_path: Path) -> None:
    good = tmp_path / "token"
    minted = load_or_mint_token(good)
    assert stat.S_IMODE(good.stat().st_mode) == 0o600 and load_or_mint_token(good) == minted

    shared = tmp_path / "shared"
    shared.write_text("x" * 40)
    shared.chmod(0o644)
    with pytest.raises(ValueError, match="open to other users"):
        load_or_mint_token(shared)

    link = tmp_path / "link"
    link.symlink_to(good)
    with pytest.raises(ValueError, match="symlink"):
        load_or_mint_token(link)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "planted-later")
    with pytest.raises(ValueError, match="symlink"):
        load_or_mint_token(dangling)
    assert not (tmp_path / "planted-later").exists()

    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        foreign.write_text("y" * 40)
        foreign.chmod(0o600)
        os.chown(foreign, 65534, 65534)
        with pytest.raises(ValueError, match="another user"):
            load_or_mint_token(foreign)

    ran = run_main("serve", "--token-file", str(shared), "--data-dir", str(tmp_path / "d"))
    assert ran.returncode == 2 and "chmod 600" in ran.stderr


def test_open_hands_the_browser_a_private_file_not_the_token(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    record = tmp_path / "browser.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(
        "#!/bin/sh\n"
        f'echo "$@" > {record}.args\n'
        'f="${1#file://}"\n'
        f'stat -c %a "$f" > {record}.mode\n'
        f'cat "$f" > {record}\n'
    )
    browser.chmod(0o755)
    proc = subprocess.Popen(
        [*harnessdesk(), "serve", "--open", "--data-dir", str(tmp_path / "d"), *provider(llm)],
        cwd=tmp_path,
        env={**cli_env(), "BROWSER": str(browser)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        token = proc.stdout.readline().strip().rsplit("token=", 1)[1]
        deadline = time.monotonic() + 20
        while not record.exists() or not record.read_text():
            assert time.monotonic() < deadline, "the browser command never ran"
            time.sleep(0.05)
        args = Path(f"{record}.args").read_text()
        assert args.startswith("file://") and token not in args
        assert Path(f"{record}.mode").read_text().strip() == "600"
        page = record.read_text()
        assert f"token={token}" in page and 'http-equiv="refresh"' in page
    finally:
        proc.terminate()
        proc.communicate(timeout=15)
    assert not list((tmp_path / "d").glob("open-*.html"))  # removed when the server stops


def test_the_web_client_has_no_cookie_left_to_send() -> None:
    """The web UI's sources: no cookie, the token only ever as a header (finding 2)."""
    root = Path(__file__).resolve().parents[2] / "webui" / "js"
    sources = {p.name: p.read_text() for p in root.rglob("*.js")}
    assert not [name for name, text in sources.items() if "document.cookie" in text]
    assert 'credentials: "omit"' in sources["web-client.js"]
