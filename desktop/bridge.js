// HarnessDesk desktop fetch bridge, the JS half (docs/architecture.md, "The desktop fetch bridge").
// Injected into the window's main world
// before the page's own scripts run (Linux: a WebKit user script at document start; other backends:
// evaluated on load, then `harnessdeskbridgeready` fires). It defines
//   window.harnessdeskBridge = { fetch(url, init) → Promise<Response>, download(url) → Promise,
//                                notify(sessionId, title, body) → Promise<boolean> }
// and talks to desktop/bridge.py through pywebview's js_api (`window.pywebview.api.bridge_*`).
//
// Unary: bridge_fetch({id, url, method, headers, body, bodyEncoding}) → {status, headers, body,
// bodyEncoding}. Streams (SSE): a ReadableStream is registered under the id first, then
// bridge_stream(request) returns the head, and Python pushes batches into
//   harnessdeskBridge._push([[id, "t", text] | [id, "b", base64] | [id, "e"] | [id, "x", msg], ...])
// Cancel (stream.cancel() or the AbortSignal) → bridge_cancel(id) → http.disconnect on the host.
(() => {
  "use strict";
  if (window.harnessdeskBridge) return;

  const encoder = new TextEncoder();
  const strictDecoder = new TextDecoder("utf-8", { fatal: true });
  const streams = new Map(); // id → ReadableStreamDefaultController
  let nextId = 0;

  const apiReady = new Promise((resolve) => {
    const check = () => {
      const api = window.pywebview && window.pywebview.api;
      if (api && typeof api.bridge_fetch === "function") {
        resolve(api);
        return true;
      }
      return false;
    };
    if (check()) return;
    window.addEventListener("pywebviewready", check);
    const poll = setInterval(() => check() && clearInterval(poll), 25);
  });

  function toBase64(bytes) {
    let s = "";
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(s);
  }

  function fromBase64(text) {
    const s = atob(text);
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  }

  function encodeBody(bytes) {
    if (!bytes.length) return { body: null, bodyEncoding: "text" };
    try {
      return { body: strictDecoder.decode(bytes), bodyEncoding: "text" };
    } catch {
      return { body: toBase64(bytes), bodyEncoding: "base64" };
    }
  }

  function abortError(signal) {
    return (signal && signal.reason) || new DOMException("The operation was aborted.", "AbortError");
  }

  const NULL_BODY = new Set([101, 103, 204, 205, 304]);

  function makeResponse(head, body) {
    const nullBody = NULL_BODY.has(head.status) || body === null;
    return new Response(nullBody ? null : body, { status: head.status, headers: head.headers });
  }

  function bridgeError(err) {
    const message = (err && (err.message || err.name)) || String(err);
    return new TypeError(`harnessdeskBridge: ${message}`);
  }

  async function wireRequest(input, init) {
    const request = new Request(new URL(String(input instanceof Request ? input.url : input), location.href), init);
    const url = new URL(request.url);
    if (url.origin !== location.origin) throw new TypeError("harnessdeskBridge only serves this app's /api/*");
    const bytes = new Uint8Array(await request.arrayBuffer());
    return {
      id: `f${++nextId}`,
      url: url.pathname + url.search,
      method: request.method,
      headers: [...request.headers],
      ...encodeBody(bytes),
    };
  }

  function wantsStream(wire) {
    if (wire.url.startsWith("/api/events.")) return true;
    return wire.headers.some(([k, v]) => k === "accept" && /text\/event-stream/i.test(v));
  }

  function unary(api, wire, signal) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const onAbort = () => {
        if (settled) return;
        settled = true;
        api.bridge_cancel(wire.id);
        reject(abortError(signal));
      };
      if (signal) signal.addEventListener("abort", onAbort, { once: true });
      api.bridge_fetch(wire).then(
        (reply) => {
          if (settled) return;
          settled = true;
          if (signal) signal.removeEventListener("abort", onAbort);
          const bytes = reply.body == null ? null : reply.bodyEncoding === "base64" ? fromBase64(reply.body) : reply.body;
          resolve(makeResponse(reply, bytes));
        },
        (err) => {
          if (settled) return;
          settled = true;
          reject(bridgeError(err));
        },
      );
    });
  }

  function stream(api, wire, signal) {
    return new Promise((resolve, reject) => {
      let settled = false;
      const body = new ReadableStream({
        start(controller) {
          streams.set(wire.id, controller); // before the call: pushes may beat the head back
        },
        cancel() {
          streams.delete(wire.id);
          api.bridge_cancel(wire.id);
        },
      });
      const onAbort = () => {
        const err = abortError(signal);
        const controller = streams.get(wire.id);
        streams.delete(wire.id);
        if (controller) {
          try {
            controller.error(err);
          } catch {}
        }
        api.bridge_cancel(wire.id);
        if (!settled) {
          settled = true;
          reject(err);
        }
      };
      if (signal) signal.addEventListener("abort", onAbort, { once: true });
      api.bridge_stream(wire).then(
        (head) => {
          if (settled) return;
          settled = true;
          if (NULL_BODY.has(head.status)) body.cancel().catch(() => {});
          resolve(makeResponse(head, NULL_BODY.has(head.status) ? null : body));
        },
        (err) => {
          streams.delete(wire.id);
          if (settled) return;
          settled = true;
          reject(bridgeError(err));
        },
      );
    });
  }

  async function bridgeFetch(input, init = {}) {
    const signal = init.signal || (input instanceof Request ? input.signal : null);
    if (signal && signal.aborted) throw abortError(signal);
    const wire = await wireRequest(input, init);
    const api = await apiReady;
    if (signal && signal.aborted) throw abortError(signal);
    return wantsStream(wire) ? stream(api, wire, signal) : unary(api, wire, signal);
  }

  function push(batch) {
    for (const [id, kind, data] of batch) {
      const controller = streams.get(id);
      if (!controller) continue;
      try {
        if (kind === "t") controller.enqueue(encoder.encode(data));
        else if (kind === "b") controller.enqueue(fromBase64(data));
        else if (kind === "e") {
          streams.delete(id);
          controller.close();
        } else if (kind === "x") {
          streams.delete(id);
          controller.error(new TypeError(`harnessdeskBridge: ${data || "stream failed"}`));
        }
      } catch {
        streams.delete(id); // the reader cancelled meanwhile
      }
    }
  }

  /** Save an /api/* download (the session export) through the native save dialog. */
  async function download(url) {
    const target = new URL(String(url), location.href);
    if (target.origin !== location.origin) throw new TypeError("harnessdeskBridge only serves this app's /api/*");
    const api = await apiReady;
    return api.bridge_download(target.pathname + target.search);
  }

  /** A desktop notification about a session (desktop/notify.py); clicking it opens the session. */
  async function notify(sessionId, title, body) {
    const api = await apiReady;
    return api.bridge_notify(String(sessionId), String(title), String(body));
  }

  function isExternal(url) {
    return url.origin !== location.origin && /^(https?|mailto):$/.test(url.protocol);
  }

  // Links: external ones open in the system browser; an export link opens the save dialog.
  window.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0) return;
    const anchor = event.target && event.target.closest ? event.target.closest("a[href]") : null;
    if (!anchor) return;
    const url = new URL(anchor.href, location.href);
    if (isExternal(url)) {
      event.preventDefault();
      apiReady.then((api) => api.bridge_open_external(url.href));
    } else if (url.origin === location.origin && url.pathname === "/api/session.export") {
      event.preventDefault();
      download(url.href).catch((err) => console.error(err));
    }
  });

  const openWindow = window.open;
  window.open = function (url, ...rest) {
    const target = url == null ? null : new URL(String(url), location.href);
    if (target && isExternal(target)) {
      apiReady.then((api) => api.bridge_open_external(target.href));
      return null;
    }
    return openWindow.call(window, url, ...rest);
  };

  Object.defineProperty(window, "harnessdeskBridge", {
    value: Object.freeze({ fetch: bridgeFetch, download, notify, _push: push, kind: "pywebview" }),
    enumerable: false,
  });
  apiReady.then(() => window.dispatchEvent(new CustomEvent("harnessdeskbridgeready")));
})();
