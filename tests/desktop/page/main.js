// Records what the page saw at boot, then exposes helpers the tests call through CDP.
import { readSse } from "./sse.js";

const boot = document.getElementById("boot");
boot.textContent = `module loaded; bridge at boot: ${typeof window.harnessdeskBridge}`;
window.bootState = { bridgeAtBoot: typeof window.harnessdeskBridge, pywebviewAtBoot: typeof window.pywebview };

window.testHelpers = { readSse };
const markReady = () => {
  document.getElementById("status").textContent = "bridge ready";
  window.bridgeReady = true;
};
window.addEventListener("harnessdeskbridgeready", markReady);
// WebKitGTK may inject pywebview (and so fire the event) before this module runs: poll too, as
// the web UI's bridge client does.
const poll = setInterval(() => {
  if (window.pywebview?.api?.bridge_fetch) {
    clearInterval(poll);
    markReady();
  }
}, 20);
