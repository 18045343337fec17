// A popup menu's keys, as menus work elsewhere (docs/decisions/keyboard-reach.md): ↓/↑ move
// between its items (wrapping), Home/End the first and last, Escape closes it and gives the focus
// back to its button, Tab closes it and goes on from the button; ↓, Enter or Space on the button
// open it with the first item focused (↑: the last).

const ITEM = "[role=menuitem]:not([disabled]), [role=menuitemradio]:not([disabled]), [role=menuitemcheckbox]:not([disabled])";

/** Wire `button` (aria-haspopup=menu) and `popup` (role=menu); `toggle(open)` shows or hides it. */
export function menuKeys(button, popup, toggle) {
  const items = () => [...popup.querySelectorAll(ITEM)];
  const focusAt = (i) => {
    const all = items();
    if (all.length) all[(i + all.length) % all.length].focus();
  };
  button.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowDown" && e.key !== "ArrowUp") return;
    e.preventDefault();
    if (popup.hidden) toggle(true);
    focusAt(e.key === "ArrowDown" ? 0 : -1);
  });
  popup.addEventListener("keydown", (e) => {
    const all = items();
    const i = all.indexOf(document.activeElement);
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: -1 }[e.key];
    if (to !== undefined) {
      e.preventDefault();
      focusAt(to);
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      toggle(false);
      button.focus();
    } else if (e.key === "Tab") {
      toggle(false);
      button.focus(); // the browser's Tab goes on from the button
    }
  });
}

/** Props for one item of a menu: out of the Tab order (the arrows move between items). */
export const menuItem = { role: "menuitem", tabindex: "-1" };
