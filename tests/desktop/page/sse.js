// A minimal SSE reader over response.body: frames may arrive split at any byte.
export async function readSse(response, { limit = Infinity, onEvent } = {}) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events = [];
  let buffer = "";
  let chunks = 0;
  while (events.length < limit) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks += 1;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (data) {
        const event = JSON.parse(data);
        events.push(event);
        if (onEvent) onEvent(event);
      }
    }
  }
  if (events.length >= limit) await reader.cancel();
  return { events, chunks };
}
