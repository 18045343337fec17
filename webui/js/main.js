// Entry point: pick the carrier (desktop bridge or same-origin fetch), then start the app.

import { createClient } from "./client/bridge-client.js";
import { App } from "./views/app.js";

async function boot() {
  let client;
  try {
    client = await createClient(window);
  } catch (err) {
    const overlay = document.getElementById("overlay");
    overlay.hidden = false;
    overlay.textContent = "";
    const card = document.createElement("div");
    card.className = "state-card";
    card.dataset.testid = "unreachable-state";
    card.setAttribute("role", "alert");
    const h2 = document.createElement("h2");
    h2.textContent = "The desktop bridge did not start";
    const p = document.createElement("p");
    p.textContent = String(err?.message ?? err);
    card.append(h2, p);
    overlay.append(card);
    return;
  }
  const app = new App(client);
  window.harnessdesk = { app, client }; // for debugging and end-to-end tests
  app.start();
}

boot();
