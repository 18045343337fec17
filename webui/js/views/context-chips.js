// Chips for what `@` attached (docs/architecture.md, "The @ finder"): removable ones in the
// composer before sending, and read-only ones on a sent message (also after a reload: they are
// its text parts marked `attached`). A chip says when its file was cut or is binary; an MCP
// resource's chip has its own icon and names its server and uri in its title.

import { h, icon, clear } from "./dom.js";
import { chipNote, formatSize } from "../state/finder.js";
import { t } from "../i18n/i18n.js";

const DEFAULT_CAP = 64 * 1024;

function chipBody(chip, cap) {
  const note = chipNote(chip, cap ?? DEFAULT_CAP);
  const label = chip.kind === "folder" ? (chip.path === "." ? t("chips.wholeFolder") : `${chip.path}/`) : chip.path;
  const glyph = { folder: "folder", resource: "resource" }[chip.kind] ?? "file";
  return [
    icon(glyph),
    h("span", { class: "context-chip-path", dir: "ltr", translate: chip.kind === "folder" && chip.path === "." ? undefined : "no" }, label),
    note ? h("span", { class: "context-chip-note", testid: "context-chip-note" }, short(chip, cap ?? DEFAULT_CAP)) : null,
  ];
}

function short(chip, cap) {
  if (chip.binary) return t("chips.binary");
  if (chip.kind === "folder") return t("chips.listingCut");
  return t("chips.firstOnly", { size: formatSize(cap) });
}

function title(chip, cap) {
  const note = chipNote(chip, cap ?? DEFAULT_CAP);
  const what = chip.kind === "resource" ? t("chips.resource", { uri: chip.uri, server: chip.server }) : t(chip.kind === "folder" ? "chips.folder" : "chips.file", { path: chip.path });
  return note ? t("error.withDetail", { message: what, detail: note }) : what;
}

/** The composer's chips: `set()` replaces them; each has a remove button. */
export class ContextChips {
  /** @param {() => void} changed @param {() => number | undefined} cap
   * @param {string} inputId the text box that takes the focus back after a chip is removed */
  constructor(changed, cap, inputId = "composer-input") {
    this.changed = changed;
    this.cap = cap;
    this.inputId = inputId;
    this.chips = [];
    this.el = h("div", { class: "context-chips composer-context", testid: "composer-context", hidden: true, "aria-label": t("chips.label") });
  }

  set(chips) {
    this.chips = chips;
    this.render();
    this.changed();
  }

  render() {
    clear(this.el);
    this.el.hidden = this.chips.length === 0;
    this.chips.forEach((chip, i) => {
      const remove = h("button", { type: "button", class: "btn btn-icon context-chip-remove", testid: "context-chip-remove", "aria-label": t("composer.removeImage", { name: chip.path }), title: t("chips.remove") }, icon("x"));
      remove.addEventListener("click", () => {
        this.set(this.chips.filter((_, k) => k !== i));
        document.getElementById(this.inputId)?.focus();
      });
      this.el.append(h("span", { class: "context-chip", testid: "context-chip", title: title(chip, this.cap()), dataset: { path: chip.path, kind: chip.kind } }, ...chipBody(chip, this.cap()), remove));
    });
  }
}

/** Read-only chips for a sent message's attached parts (`attached` objects). */
export function sentChips(attached) {
  if (!attached.length) return null;
  return h(
    "div",
    { class: "context-chips", testid: "msg-context" },
    attached.map((a) => h("span", { class: "context-chip", testid: "msg-context-chip", title: title(a), dataset: { path: a.path, kind: a.kind } }, ...chipBody(a))),
  );
}

/** A sent message's review comments as chips that open the review pane at their lines
 * (docs/decisions/review-pane.md); `open(path, {start, end, side})`, or null: plain chips. */
export function reviewChips(reviews, open) {
  if (!reviews.length) return null;
  return h(
    "div",
    { class: "context-chips review-chips", testid: "msg-review" },
    reviews.map((r) => {
      const lines = r.startLine === r.endLine ? t("review.line", { n: r.startLine }) : t("review.lines", { from: r.startLine, to: r.endLine });
      const label = t("review.chip", { path: r.path, lines }) + (r.side === "old" ? ` ${t("review.sideOld")}` : "");
      const chip = h(open ? "button" : "span", { type: open ? "button" : null, class: "context-chip review-chip", testid: "msg-review-chip", title: open ? t("review.chipTitle") : null, dataset: { path: r.path } }, icon("file"), h("span", { translate: "no" }, label), h("span", { class: "review-chip-body", translate: "no" }, r.body));
      if (open) chip.addEventListener("click", () => open(r.path, { start: r.startLine, end: r.endLine, side: r.side }));
      return chip;
    }),
  );
}
