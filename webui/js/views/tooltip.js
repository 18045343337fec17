// The page's tooltips (docs/decisions/tooltips.md): a `title` shows in a tooltip of the page's
// own instead of the engine's. WebKitGTK keeps a native tooltip on screen until the pointer
// moves, a key or a button is pressed — whatever opens or moves under it meanwhile (a dialog, the
// sidebar collapsing) — and nothing a page does hides it. This one goes when what it describes is
// covered, moved, hidden or scrolled away, when a key or a button is pressed, when the window
// loses the focus, or the pointer or the focus leaves; it shows for the keyboard's focus too.

const DELAY_MS = 600; // as long as a pointer rests before the engines' own tooltips show

let tip = null; // the tooltip element (one for the page)
let anchor = null; // what it describes
let placed = null; // where the anchor stood when the tip showed: it moved, the tip goes
let resting = null; // a hidden tip's anchor still under the pointer: its title waits until it leaves
let timer = 0;
let frame = 0;

/** Take the title off `el` while the pointer is on it (the engine shows none), keeping it. */
function stash(el) {
  const title = el.getAttribute("title");
  if (title === null) return;
  el.dataset.tip = title;
  if (!el.hasAttribute("aria-label") && !el.textContent.trim()) {
    el.setAttribute("aria-label", title); // the title was its only name: it keeps it meanwhile
    el.dataset.tipLabel = "";
  }
  el.removeAttribute("title");
}

/** Give `el` its title back, unless it was given a new one meanwhile. */
function unstash(el) {
  if (el.dataset.tip === undefined) return;
  if (!el.hasAttribute("title")) el.setAttribute("title", el.dataset.tip);
  if (el.dataset.tipLabel !== undefined) el.removeAttribute("aria-label");
  delete el.dataset.tip;
  delete el.dataset.tipLabel;
}

const textOf = (el) => el.getAttribute("title") ?? el.dataset.tip ?? "";

function element() {
  if (!tip) tip = Object.assign(document.createElement("div"), { className: "tooltip", id: "tooltip", hidden: true });
  tip.setAttribute("role", "tooltip");
  tip.dataset.testid = "tooltip";
  // above a modal dialog only from inside it (the top layer): the open dialog holds it, else the body
  const host = [...document.querySelectorAll("dialog[open]")].pop() ?? document.body;
  if (tip.parentElement !== host) host.append(tip);
  return tip;
}

/** Whether `el` is still where it was and nothing covers it (a dialog, a drawer, a menu). */
function inView(el) {
  if (!el.isConnected || !el.getClientRects().length) return false;
  const r = el.getBoundingClientRect();
  if (placed && (Math.abs(r.left - placed.left) > 1 || Math.abs(r.top - placed.top) > 1)) return false;
  const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!top && (el === top || el.contains(top) || top === tip);
}

function show(el) {
  const text = textOf(el).trim();
  if (!text || !inView(el)) return hide();
  const t = element();
  t.textContent = text;
  t.hidden = false;
  const r = el.getBoundingClientRect();
  placed = { left: r.left, top: r.top };
  const w = t.offsetWidth;
  const h = t.offsetHeight;
  const below = r.bottom + 6 + h <= innerHeight;
  t.style.left = `${Math.max(4, Math.min(innerWidth - w - 4, r.left + r.width / 2 - w / 2))}px`;
  t.style.top = `${below ? r.bottom + 6 : Math.max(4, r.top - 6 - h)}px`;
  el.setAttribute("aria-describedby", [el.getAttribute("aria-describedby"), "tooltip"].filter(Boolean).join(" "));
  watch();
}

/** While it shows, every frame: the anchor covered, moved or gone hides it; a title set meanwhile
 * is taken off too (the engine must not show its own beside it). */
function watch() {
  cancelAnimationFrame(frame);
  frame = requestAnimationFrame(() => {
    if (!anchor || tip?.hidden) return;
    if (anchor.matches(":hover") && anchor.hasAttribute("title")) {
      stash(anchor);
      tip.textContent = textOf(anchor);
    }
    if (!inView(anchor)) return hide();
    watch();
  });
}

/** Hide the tooltip and give its anchor back its title. */
export function hide() {
  clearTimeout(timer);
  cancelAnimationFrame(frame);
  if (tip) {
    tip.hidden = true;
    tip.textContent = ""; // nothing of it left in a dialog's text
    if (tip.parentElement !== document.body) document.body.append(tip);
  }
  if (anchor) {
    // under the pointer still, a title given back would show the engine's tooltip at its next move
    if (anchor.matches(":hover") && anchor.dataset.tip !== undefined) resting = anchor;
    else unstash(anchor);
    const rest = (anchor.getAttribute("aria-describedby") ?? "").split(" ").filter((id) => id && id !== "tooltip");
    if (rest.length) anchor.setAttribute("aria-describedby", rest.join(" "));
    else anchor.removeAttribute("aria-describedby");
  }
  anchor = null;
  placed = null;
}

function arm(el, { strip }) {
  if (el === anchor) return;
  hide();
  if (strip && resting && resting !== el) leave(); // the pointer moved on (a focus leaves it be)
  anchor = el;
  if (strip) stash(el);
  timer = setTimeout(() => anchor === el && show(el), DELAY_MS);
}

/** The pointer left the anchor of a hidden tip: its title comes back. */
function leave() {
  if (resting) unstash(resting);
  resting = null;
}

/** Install once: the page's titles show through this tooltip from now on. */
export function installTooltips() {
  const titled = (node) => (node instanceof Element ? node.closest("[title], [data-tip]") : null);
  document.addEventListener("mouseover", (e) => {
    const el = titled(e.target);
    if (el) arm(el, { strip: true });
    else if (anchor && !anchor.contains(e.target)) hide();
  });
  document.addEventListener("mouseout", (e) => {
    const into = (el) => e.relatedTarget instanceof Node && el.contains(e.relatedTarget);
    if (anchor && !into(anchor)) {
      const was = anchor;
      hide();
      if (resting === was) leave();
    }
    if (resting && !into(resting)) leave();
  });
  document.addEventListener("focusin", (e) => {
    const el = titled(e.target);
    if (el && e.target.matches(":focus-visible")) arm(el, { strip: false });
  });
  document.addEventListener("focusout", (e) => anchor && anchor.contains(e.target) && !anchor.matches(":hover") && hide());
  for (const type of ["pointerdown", "keydown", "wheel"]) document.addEventListener(type, () => anchor && hide(), true);
  // a scroll that carries the anchor away (the frame check sees it too); a log streaming elsewhere does not
  document.addEventListener("scroll", (e) => anchor && (e.target === document || e.target.contains?.(anchor)) && hide(), true);
  window.addEventListener("blur", () => anchor && hide());
}
