// Records what the page saw at boot, then exposes helpers the tests call through CDP.
import { readSse } from "./sse.js";

const boot = document.getElementById("boot");
boot.textContent = `module loaded; bridge at boot: ${typeof window.harnessdeskBridge}`;
window.bootState = { bridgeAtBoot: typeof window.harnessdeskBridge, pywebviewAtBoot: typeof window.pywebview };

window.testHelpers = { readSse };
window.addEventListener("harnessdeskbridgeready", () => {
  document.getElementById("status").textContent = "bridge ready";
  window.bridgeReady = true;
});
