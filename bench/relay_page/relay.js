// The page half of bench/relay_bench.py: one turn of the real host read from `events.mux`,
// through the desktop bridge (`harnessdeskBridge.fetch`) or plain `fetch` on the loopback site.
// Both paths parse every frame the same way the web client does (one JSON.parse per frame).

// On the loopback site the token comes in the address (`/?token=…`) and goes out as a header.
const token = new URLSearchParams(location.search).get("token");

function transport(viaBridge) {
  if (viaBridge) return window.harnessdeskBridge.fetch;
  return (url, init = {}) => fetch(url, { ...init, headers: { ...(init.headers || {}), authorization: `Bearer ${token}` } });
}

async function rpc(fetchFn, method, payload) {
  const body = { type: "client-request", rpcId: crypto.randomUUID(), method, payload };
  const response = await fetchFn(`/api/${method}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!answer.result || !answer.result.ok) throw new Error(`${method}: ${JSON.stringify(answer).slice(0, 300)}`);
  return answer.result.value;
}

/** Reads the mux until `sessionId`'s turn ends; resolves {chunks, reads, cutOff, secs}. */
function readTurn(reader, sessionId, started) {
  const decoder = new TextDecoder();
  let buffer = "";
  let chunks = 0;
  let reads = 0;
  return (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      reads++;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const line = block.split("\n").find((l) => l.startsWith("data: "));
        if (!line) continue;
        const frame = JSON.parse(line.slice(6)).payload;
        if (frame.type === "stream/error") {
          const why = `stream/error: ${frame.error && frame.error.message}`;
          return { chunks, reads, cutOff: true, why, secs: (performance.now() - started()) / 1000 };
        }
        if (frame.type !== "session/event" || frame.sessionId !== sessionId) continue;
        if (frame.event.type === "assistant/chunk") chunks++;
        else if (frame.event.type === "turn/end") return { chunks, reads, cutOff: false, secs: (performance.now() - started()) / 1000 };
      }
    }
    const why = "the stream ended before turn/end";
    return { chunks, reads, cutOff: true, why, secs: (performance.now() - started()) / 1000 };
  })();
}

/** One measured turn: subscribe, create a session, prompt, read to its turn/end. */
async function runTurn(viaBridge) {
  const fetchFn = transport(viaBridge);
  const controller = new AbortController();
  const response = await fetchFn("/api/events.mux", { headers: { accept: "text/event-stream" }, signal: controller.signal });
  const reader = response.body.getReader();
  try {
    const created = await rpc(fetchFn, "session.create", {});
    const sessionId = created.sessionId;
    let t0 = 0;
    const reading = readTurn(reader, sessionId, () => t0);
    t0 = performance.now();
    await rpc(fetchFn, "session.prompt", { sessionId, mode: "queue", content: [{ type: "text", text: "stream" }] });
    return { sessionId, ...(await reading) };
  } finally {
    controller.abort();
    reader.cancel().catch(() => {});
  }
}

window.relayBench = { runTurn };
document.getElementById("status").textContent = "relay bench ready";
