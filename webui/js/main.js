// Entry point: pick the carrier (desktop bridge or same-origin fetch), then start the app.

import { createClient } from "./client/bridge-client.js";
import { App } from "./views/app.js";
import { applyCachedTheme } from "./views/theme.js";
import { applyCachedLanguage, t } from "./i18n/i18n.js";

applyCachedTheme(); // before anything paints
// the window, painting without a GPU: no blurred shadows (docs/decisions/cheap-scroll-frames.md)
if (globalThis.HARNESSDESK_PAINT === "software") document.documentElement.dataset.paint = "software";
applyCachedLanguage();

function stateCard(testid, title, text, foreign = false) {
  const overlay = document.getElementById("overlay");
  overlay.hidden = false;
  overlay.textContent = "";
  const card = document.createElement("div");
  card.className = "state-card";
  card.dataset.testid = testid;
  card.setAttribute("role", "alert");
  const h2 = document.createElement("h2");
  h2.textContent = title;
  const p = document.createElement("p");
  p.textContent = text;
  p.translate = !foreign; // the browser's own words are not ours to relabel
  card.append(h2, p);
  overlay.append(card);
}

async function boot() {
  let client;
  try {
    client = await createClient(window);
  } catch (err) {
    stateCard("unreachable-state", t("status.bridgeFailed"), String(err?.message ?? err), true);
    return;
  }
  if (client.kind === "web" && !client.token) {
    stateCard("needs-link-state", t("status.needsLinkTitle"), t("status.needsLink"));
    return;
  }
  const app = new App(client);
  window.harnessdesk = { app, client }; // for debugging and end-to-end tests
  app.start();
}

boot();
