// What tests/browser/i18n_screens.py runs in the page: the visible strings of a Chinese screen
// that still hold English words (docs/decisions.md, "Languages").
([allowed, foreign]) => {
  const allow = new RegExp(`(?<![A-Za-z])(?:${allowed.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![A-Za-z])`, "g");
  // what is left once paths, file and tool names, commands, ids with digits or dashes and the
  // allowed words are taken out: two Latin letters in a row are an untranslated word
  const english = (text) => /[A-Za-z]{2,}/.test(foreign.reduce((t, f) => t.split(f).join(" "), text)
    .replace(/https?:\/\/[!-~…]*/g, " ")
    .replace(/[~.]*\/[!-~]*(?: [a-z]+\b)?/g, " ") // paths, and a command with its word (`/plan off`)
    .replace(/@[!-~]+/g, " ")
    .replace(/[!-~]*[_.\\][A-Za-z0-9][!-~]*/g, " ")
    .replace(/\b\w*\d\w*\b/g, " ")
    .replace(/\b[A-Za-z]+(?:-[A-Za-z0-9]+)+\b/g, " ")
    .replace(allow, " "));
  const shown = (el) => {
    const box = el.closest("select") ?? el; // an option shows through its select
    return box.checkVisibility({ visibilityProperty: true }) && !box.closest("[hidden]");
  };
  const where = (el) => {
    const id = el.closest("[data-testid]")?.dataset.testid ?? "";
    return `${id} <${el.tagName.toLowerCase()}${el.className && typeof el.className === "string" ? "." + el.className.split(" ")[0] : ""}>`;
  };
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  for (let n = walker.currentNode; n; n = walker.nextNode()) {
    if (n.nodeType === 3) {
      const el = n.parentElement;
      if (!el || ["SCRIPT", "STYLE", "NOSCRIPT"].includes(el.tagName) || !n.data.trim()) continue;
      if (el.translate && shown(el) && english(n.data)) out.push(`${where(el)}: ${n.data.trim()}`);
    } else if (n.translate && shown(n)) {
      for (const name of ["title", "placeholder", "aria-label", "alt"]) {
        const v = n.getAttribute(name);
        if (v && english(v)) out.push(`${where(n)} @${name}: ${v}`);
      }
    }
  }
  return out;
}
