// One DOM node per fold row. renderRow() builds it, updateRow() patches it in place: for a
// streaming assistant message only the block whose text grew is rendered, and of that only what
// changed (transcript-stream.js).

import { noToolsRow } from "./no-tools-row.js";
import { h, icon, fmt, setChildren, tNodes } from "./dom.js";
import { renderMarkdownInto } from "./markdown.js";
import { renderStreaming, settle } from "./transcript-stream.js";
import { renderToolCard, updateToolCard } from "./tool-card.js";
import { attachmentThumb } from "./attachments.js";
import { reviewChips, sentChips } from "./context-chips.js";
import { attachedOf, ownText, reviewsOf } from "../state/finder.js";
import { describeError } from "../state/problems.js";
import { restoredRow, turnFilesLine, unrecordedLine } from "./undo.js";
import { editResendButton } from "./edit-resend.js";
import { rewindButton, rewoundRow } from "./rewind.js";
import { goalRoundLabel } from "../state/fold-goals.js";
import { hookRow } from "./hook-row.js";
import { t } from "../i18n/i18n.js";

/** ctx: {turns, sessionId, onFork(seq), onRetry(item), isRunning(), openPath?(path), canOpenPath?(), cwdOf?(sid)} */
export function renderRow(item, ctx) {
  let el;
  switch (item.kind) {
    case "user":
      el = userRow(item, ctx);
      break;
    case "assistant":
      el = h("article", { class: "row msg msg-assistant", testid: "msg-assistant" });
      el._blocks = new Map();
      updateAssistant(el, item);
      break;
    case "tool":
      el = renderToolCard(item, ctx);
      break;
    case "turn-end":
      el = h("div", { class: "row turn-end", testid: "turn-end" });
      updateTurnEnd(el, item, ctx);
      break;
    case "notice":
      el = h("div", { class: `row notice tone-${item.tone ?? "info"}`, testid: "notice-row" }, noticeText(item));
      break;
    case "command":
      el = h("div", { class: "row command-row", testid: "command-row" });
      updateCommand(el, item);
      break;
    case "skill":
      el = skillRow(item);
      break;
    case "summary":
      el = summaryRow(item);
      break;
    case "context":
      el = contextRow(item);
      break;
    case "restored":
      el = restoredRow(item);
      break;
    case "rewound":
      el = rewoundRow(item, ctx);
      break;
    case "blocked":
      el = blockedRow(item);
      break;
    case "hook":
      el = hookRow(item);
      break;
    default:
      el = rawRow(item);
  }
  el.dataset.itemId = item.id;
  el.dataset.seq = String(item.seq);
  if (item.outOfContext) markOutOfContext(el);
  if (item.rewound) markRewound(el);
  return el;
}

/** A row a rewind took back: folded under its "Rewound" row, marked when shown. */
function markRewound(el) {
  el.classList.add("is-rewound");
  el.dataset.rewound = "true";
  el.title = t("rewind.marked");
}

/** A row a compaction summarized: still readable, dimmed, and saying why (its summary follows). */
function markOutOfContext(el) {
  el.classList.add("out-of-context");
  el.dataset.outOfContext = "true";
  el.title = t("row.outOfContext");
}

export function updateRow(el, item, ctx) {
  switch (item.kind) {
    case "assistant":
      return updateAssistant(el, item);
    case "tool": {
      const out = updateToolCard(el, item, ctx);
      if (item.outOfContext) markOutOfContext(out ?? el);
      if (item.rewound) markRewound(out ?? el);
      return out;
    }
    case "turn-end":
      return updateTurnEnd(el, item, ctx);
    case "notice":
      el.textContent = noticeText(item);
      return;
    case "command":
      return updateCommand(el, item);
    default: {
      const fresh = renderRow(item, ctx);
      el.replaceWith(fresh);
      return fresh;
    }
  }
}

/** A notice the fold made (`key` + `params`: in the page's language), or the host's own text. */
function noticeText(item) {
  return item.key ? t(item.key, item.params) : item.text;
}

function userRow(item, ctx) {
  if (item.retried) return h("div", { class: "row notice tone-info retried-attempt", testid: "retried-attempt" }, t("row.retriedAttempt"));
  const texts = ownText(item.content).filter((t) => t.length);
  const images = item.content.filter((b) => b.type === "image" && b.attachment);
  return h(
    "article",
    { class: ["row msg msg-user", item.steering && "is-steering"], testid: "msg-user" },
    !item.steering && ctx.onEditResend ? editResendButton(item, ctx) : null,
    !item.steering && !item.fromParent && !item.rewound && ctx.onRewind ? rewindButton(item, ctx) : null,
    h(
      "div",
      { class: "bubble" },
      item.steering ? h("span", { class: "steer-tag", title: t("row.steerTitle") }, t("row.steer")) : null,
      item.fromParent ? h("span", { class: "steer-tag", testid: "from-parent", title: t("row.fromParentTitle") }, t("row.fromParent")) : null,
      images.length ? h("div", { class: "thumbs" }, images.map((b) => attachmentThumb(ctx.turns, ctx.sessionId, b.attachment))) : null,
      texts.length ? h("div", { class: "user-text", translate: "no" }, texts.join("\n")) : null,
      sentChips(attachedOf(item.content)),
      reviewChips(reviewsOf(item.content), ctx.openChanges ?? null),
    ),
  );
}

function updateAssistant(el, item) {
  el.classList.toggle("is-partial", item.partial);
  el.classList.toggle("is-interrupted", !!item.interrupted);
  el.hidden = item.blocks.length === 0;
  const seen = new Set();
  let prev = null;
  for (const b of item.blocks) {
    const key = String(b.index);
    seen.add(key);
    let entry = el._blocks.get(key);
    if (!entry || entry.type !== b.type) {
      entry?.node.remove();
      entry = { type: b.type, node: b.type === "reasoning" ? reasoningNode() : h("div", { class: "md", testid: "assistant-text", translate: "no" }), text: null, partial: null, stream: null };
      el._blocks.set(key, entry);
    }
    if (entry.text !== b.text || entry.partial !== b.partial) {
      if (b.type === "reasoning") {
        entry.node._body.textContent = b.text;
        entry.node._label.textContent = b.partial && item.partial ? t("row.thinking") : t("row.reasoningChars", { count: b.text.length });
      } else if (b.partial) {
        entry.latest = b.text;
        renderStreaming(entry, b.text);
      } else {
        settle(entry, b.text);
      }
      entry.text = b.text;
      entry.partial = b.partial;
    }
    // keep DOM order = block order
    const want = prev ? prev.nextSibling : el.firstChild;
    if (want !== entry.node) el.insertBefore(entry.node, want);
    prev = entry.node;
  }
  for (const [key, entry] of el._blocks) {
    if (!seen.has(key)) {
      entry.node.remove();
      el._blocks.delete(key);
    }
  }
  let mark = el.querySelector(":scope > .interrupted-mark");
  if (item.interrupted && !mark) el.append(h("p", { class: "interrupted-mark", testid: "interrupted-mark" }, t("row.interruptedReply")));
  else if (!item.interrupted && mark) mark.remove();
}

function reasoningNode() {
  const label = h("span", { class: "reasoning-label" }, t("row.reasoning"));
  const body = h("div", { class: "reasoning-body", translate: "no" });
  const d = h("details", { class: "reasoning", testid: "reasoning" }, h("summary", { testid: "reasoning-toggle" }, label), body);
  d._label = label;
  d._body = body;
  return d;
}

const REASON_TEXT = {
  aborted: (r) => (r.by === "user" ? t("turn.stopped") : r.by === "parent" ? t("turn.stoppedByParent") : t("turn.stoppedClosed")),
  "max-tokens": () => t("turn.maxTokens"),
  interrupted: () => t("turn.interruptedClosed"),
  blocked: () => t("turn.blocked"),
};

function updateTurnEnd(el, item, ctx) {
  const r = item.reason ?? { kind: "completed" };
  el.dataset.reason = r.kind;
  const meta = h("div", { class: "turn-meta" });
  if (r.kind === "interrupted") meta.append(h("span", { class: "badge badge-warn", testid: "interrupted-mark" }, t("turn.interrupted")));
  if (REASON_TEXT[r.kind]) meta.append(h("span", { class: "turn-reason" }, REASON_TEXT[r.kind](r)));
  if (item.usage) {
    meta.append(
      h(
        "span",
        { class: "usage", testid: "turn-usage", title: t("turn.usageTitle") },
        t("turn.usage", { input: item.usage.inputTokens, output: item.usage.outputTokens }),
      ),
    );
  }
  const fork = h("button", { type: "button", class: "btn btn-ghost btn-small", testid: "fork-turn", title: t("turn.forkTitle") }, icon("fork"), h("span", {}, t("turn.fork")));
  fork.addEventListener("click", () => ctx.onFork(item.seq, fork));
  meta.append(h("span", { class: "spacer" }), fork);
  const parts = [];
  if (r.kind === "error" && item.retried) {
    parts.push(h("p", { class: "turn-retried", testid: "turn-error-retried" }, t("turn.retriedBelow", { reason: describeError(r.error) || t("turn.failedShort") })));
  } else if (r.kind === "error") {
    const message = describeError(r.error) || t("turn.failed");
    const retry = h("button", { type: "button", class: "btn btn-small", testid: "retry-turn" }, icon("retry"), h("span", {}, t("turn.retry")));
    retry.addEventListener("click", () => ctx.onRetry(item, retry));
    parts.push(h("div", { class: "turn-error", role: "alert", testid: "turn-error" }, h("p", {}, h("strong", {}, t("turn.errorLabel")), message), item.userItemId ? retry : null));
  }
  setChildren(el, parts, turnFilesLine(item, ctx), unrecordedLine(item), meta);
}

const COMMAND_STATUS = { running: "command.running", success: "command.done", error: "command.failed", interrupted: "turn.interrupted" };

/** A slash command the person ran: `/name args` and, once settled, its result. */
function updateCommand(el, item) {
  el.dataset.status = item.status;
  el.dataset.commandId = item.commandId;
  const line = item.name ? `/${item.name}${item.args ?? ""}` : t("command.command");
  const status = h("span", { class: "command-status", testid: "command-status" }, COMMAND_STATUS[item.status] ? t(COMMAND_STATUS[item.status]) : item.status);
  setChildren(
    el,
    h("div", { class: "command-line" }, icon("terminal"), h("code", { testid: "command-line", translate: "no" }, line), status),
    item.text ? h("p", { class: "command-result", testid: "command-result", translate: "no" }, item.text) : null,
  );
}

/** A skill the person invoked with /name: its instructions went to the model (collapsed here). */
function skillRow(item) {
  return h(
    "details",
    { class: "row skill-row", testid: "skill-row" },
    h("summary", {}, icon("book"), tNodes("row.skillLoaded", { name: h("code", { translate: "no" }, `/${item.name}`) })),
    h("pre", { class: "skill-text", translate: "no" }, item.text),
  );
}

const CONTEXT_LABEL = { jobs: "row.context.job", subagent: "row.context.subagent", "tool-goal": "row.context.goalWrapUp" };

/** A prompt a prompt gate refused: greyed out, with the reason; it never reached the model. */
function blockedRow(item) {
  const texts = item.content.filter((b) => b.type === "text").map((b) => b.text);
  return h(
    "article",
    { class: "row msg msg-user msg-blocked", testid: "prompt-blocked" },
    h(
      "div",
      { class: "bubble" },
      h("span", { class: "steer-tag blocked-tag" }, t("row.notSent")),
      texts.length ? h("div", { class: "user-text", translate: "no" }, texts.join("\n")) : null,
      item.reason ? h("p", { class: "blocked-reason", testid: "blocked-reason", translate: "no" }, item.reason) : h("p", { class: "blocked-reason", testid: "blocked-reason" }, t("row.blockedReason")),
    ),
  );
}

/** Context the host gave the agent (a job's end, an approval notice): small, collapsed. */
function contextRow(item) {
  if (item.plugin === "no-tools") return noToolsRow();
  const objective = item.goalRound ? /^Objective: (.*)$/m.exec(item.text)?.[1] : null;
  const first = objective ?? item.text.split("\n", 1)[0];
  return h(
    "details",
    { class: "row context-row", testid: "context-row", dataset: { plugin: item.plugin } },
    h("summary", { title: t("row.context.title") }, icon("info"), h("span", { class: "context-label", testid: item.goalRound ? "goal-round-label" : null }, item.plugin === "goal" ? goalRoundLabel(item.goalRound) : t(CONTEXT_LABEL[item.plugin] ?? "row.context.context")), h("span", { class: "context-first", translate: "no" }, first)),
    h("pre", { class: "context-text", translate: "no" }, item.text),
  );
}

/**
 * "Conversation summarized": sits where the compaction happened, after the rows it covers (they
 * stay visible, marked out of context); expands to what the agent now continues from.
 */
function summaryRow(item) {
  const what = item.tokens ? t("summary.messagesTokens", { count: item.count, tokens: item.tokens }) : t("summary.messages", { count: item.count });
  const body = h("div", { class: "summary-body" });
  const details = h(
    "details",
    { class: "summary-details" },
    h("summary", { testid: "summary-toggle" }, icon("compress"), h("strong", {}, t("summary.title")), h("span", { class: "summary-meta" }, what, item.manual ? " · /compact" : t("summary.automatically"))),
    body,
  );
  const where = item.shadowed.length
    ? t("summary.above")
    : t("summary.olderPages");
  details.addEventListener("toggle", () => {
    if (!details.open || body.childElementCount) return;
    const text = h("div", { class: "md summary-text", testid: "summary-text", translate: "no" });
    renderMarkdownInto(text, item.text);
    body.append(h("h3", { class: "summary-heading" }, t("summary.remembers")), text);
  });
  return h("section", { class: "row summary-row", testid: "summary-row" }, details, h("p", { class: "summary-note muted small", testid: "summary-note" }, where));
}

function rawRow(item) {
  const d = h(
    "details",
    { class: "row raw-event", testid: "raw-event" },
    h("summary", {}, h("code", {}, item.type), t("row.rawEvent", { seq: String(item.seq) })),
    h("pre", { translate: "no" }, JSON.stringify(item.data, null, 2)),
  );
  return d;
}
