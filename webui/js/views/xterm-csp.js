// xterm.js under the page's strict CSP (docs/decisions.md, "Terminal and files"): `style-src
// 'self'` ignores the rules xterm writes into the <style> elements it creates (its colours, its
// cell sizes) and the `style` attributes it sets (24-bit colours). CSSOM is not inline style:
// the text of each such <style> element is mirrored into a constructed stylesheet adopted by the
// document, and `setAttribute("style", …)` becomes `style.cssText = …`. Installed once, before the
// first terminal; the CSP stays as it is.

let installed = false;
const sheets = new WeakMap(); // <style> element → its constructed sheet
const live = new Set(); // [element, sheet] pairs whose rules apply now

function mirror(el, text) {
  let sheet = sheets.get(el);
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheets.set(el, sheet);
    live.add([el, sheet]);
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  }
  try {
    sheet.replaceSync(text);
  } catch {
    /* a rule the browser cannot parse: the others still apply */
  }
}

/** Drop the sheets of <style> elements that left the document (a disposed terminal). */
export function sweepStyles() {
  const gone = [...live].filter(([el]) => !el.isConnected);
  if (!gone.length) return;
  const dead = new Set(gone.map(([, sheet]) => sheet));
  for (const pair of gone) live.delete(pair);
  document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) => !dead.has(s));
}

export function installCspStyles() {
  if (installed) return;
  installed = true;
  const text = Object.getOwnPropertyDescriptor(Node.prototype, "textContent");
  Object.defineProperty(HTMLStyleElement.prototype, "textContent", {
    configurable: true,
    get() {
      return text.get.call(this);
    },
    set(value) {
      text.set.call(this, value);
      mirror(this, String(value ?? ""));
    },
  });
  const setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() === "style" && this.style) {
      this.style.cssText = String(value);
      return;
    }
    return setAttribute.call(this, name, value);
  };
}
