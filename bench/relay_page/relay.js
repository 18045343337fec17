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

/** Reads the mux until `sessionId`'s turn ends; resolves {events, text, first, reads, cutOff, secs}:
 * the `assistant/chunk` events read, the streamed text joined, seconds to its first piece. */
function readTurn(reader, sessionId, started) {
  const decoder = new TextDecoder();
  let buffer = "";
  let events = 0;
  const text = [];
  let first = null;
  let reads = 0;
  let cutOff = false;
  const result = () => ({ events, text: text.join(""), first, reads, cutOff, secs: (performance.now() - started()) / 1000 });
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
          cutOff = true;
          return result();
        }
        if (frame.type !== "session/event" || frame.sessionId !== sessionId) continue;
        if (frame.event.type === "assistant/chunk") {
          events++;
          const chunk = frame.event.data.chunk;
          if (chunk.type === "text-delta") {
            if (first === null) first = (performance.now() - started()) / 1000;
            text.push(chunk.text);
          }
        } else if (frame.event.type === "turn/end") return result();
      }
    }
    cutOff = true;
    return result();
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
