// The assistant half of the fold: streamed chunks accumulate by block index (text, reasoning,
// tool-call argument deltas); block-end replaces one partial block, assistant/message replaces
// the whole partial message. Tool calls become their own `tool` rows, keyed by their step and
// position (fold-tools.js).

import { toolAt, toolForBlock } from "./fold-tools.js";

const key = (turn, step) => `${turn}:${step}`;

function partialFor(fold, ev, d) {
  const k = key(d.turn, d.step);
  const id = fold.partials.get(k);
  if (id) return fold.byId.get(id);
  const item = fold.add({
    id: `a:${d.turn}:${d.step}`,
    kind: "assistant",
    seq: ev.seq,
    turn: d.turn,
    step: d.step,
    partial: true,
    blocks: [],
    interrupted: false,
    usage: null,
  });
  item.toolIndex = {}; // block index → position of the tool row (tool-call blocks live in tool rows)
  fold.partials.set(k, item.id);
  return item;
}

function blockAt(item, index, type) {
  let b = item.blocks.find((x) => x.index === index);
  if (!b) {
    b = { index, type, text: "", partial: true };
    const at = item.blocks.findIndex((x) => x.index > index);
    if (at < 0) item.blocks.push(b);
    else item.blocks.splice(at, 0, b);
  }
  return b;
}

export function applyChunk(fold, ev, d) {
  const c = d.chunk ?? {};
  if (c.type === "usage") {
    fold.setUsage(d.turn, d.step, c.usage);
    return;
  }
  if (c.type === "finish") return;
  const item = partialFor(fold, ev, d);
  switch (c.type) {
    case "block-start":
      if (c.blockType === "text" || c.blockType === "reasoning") blockAt(item, c.index, c.blockType);
      break;
    case "text-delta":
      blockAt(item, c.index, "text").text += c.text ?? "";
      break;
    case "reasoning-delta":
      blockAt(item, c.index, "reasoning").text += c.text ?? "";
      break;
    case "tool-call-delta": {
      const tool = toolForBlock(fold, ev, item, c.index, c.id ?? null, c.name ?? null);
      if (c.name && tool.name !== c.name) tool.name = c.name;
      tool.arguments += c.argumentsDelta ?? "";
      fold.touch(tool);
      return;
    }
    case "block-end": {
      const b = c.block ?? {};
      if (b.type === "tool-call") {
        const tool = toolForBlock(fold, ev, item, c.index, b.id ?? null, b.name ?? null);
        if (b.id) tool.callId = b.id;
        tool.name = b.name ?? tool.name;
        tool.arguments = b.arguments ?? tool.arguments;
        if (tool.status === "streaming") tool.status = "pending";
        fold.touch(tool);
        return;
      }
      if (b.type === "text" || b.type === "reasoning") {
        const block = blockAt(item, c.index, b.type);
        block.type = b.type;
        block.text = b.text ?? "";
        block.partial = false;
      }
      break;
    }
    default:
      return;
  }
  fold.touch(item);
}

export function applyAssistantMessage(fold, ev, d) {
  const k = key(d.turn, d.step);
  const partialId = fold.partials.get(k);
  let item = partialId ? fold.byId.get(partialId) : null;
  const content = Array.isArray(d.message?.content) ? d.message.content : [];
  const blocks = [];
  content.forEach((b, index) => {
    if (b?.type === "text" || b?.type === "reasoning") blocks.push({ index, type: b.type, text: b.text ?? "", partial: false });
  });
  if (!item) {
    item = fold.add({
      id: `a:${d.turn}:${d.step}`,
      kind: "assistant",
      seq: ev.seq,
      turn: d.turn,
      step: d.step,
      partial: false,
      blocks,
      interrupted: !!d.interrupted,
      usage: d.usage ?? null,
    });
  } else {
    item.blocks = blocks;
    item.partial = false;
    item.interrupted = item.interrupted || !!d.interrupted;
    item.usage = d.usage ?? item.usage;
    fold.touch(item);
  }
  delete item.toolIndex;
  item.messageId = d.message?.id ?? null;
  item.msgSeq = ev.seq;
  fold.partials.delete(k);
  let position = 0;
  for (const b of content) {
    if (b?.type !== "tool-call") continue;
    const tool = toolAt(fold, ev, d.turn, d.step, position++, b.id ?? null, b.name ?? null);
    if (b.id) tool.callId = b.id;
    tool.name = b.name ?? tool.name;
    tool.arguments = b.arguments ?? tool.arguments;
    tool.msgSeq = ev.seq;
    if (tool.status === "streaming") tool.status = "pending";
    fold.touch(tool);
  }
  if (d.usage) fold.setUsage(d.turn, d.step, d.usage);
}

/** Turn end: whatever is still streaming in that turn stops being partial. */
export function closePartials(fold, turn) {
  for (const [k, id] of [...fold.partials]) {
    const item = fold.byId.get(id);
    if (item && item.turn === turn) {
      item.partial = false;
      for (const b of item.blocks) b.partial = false;
      delete item.toolIndex;
      fold.partials.delete(k);
      fold.touch(item);
    }
  }
}
