// Settings for what the agent reaches (docs/decisions.md, "Rules by pattern", "Web fetch and private
// addresses", "Language servers"): the rules of Settings → Permissions as an editable list, the
// Web section (private hosts web_fetch may reach, the search provider) and the language servers
// (which run, and a switch to turn one off). Each writes its namespace with settings.mutate.

import { h, icon, tNodes } from "./dom.js";
import { t } from "../i18n/i18n.js";

const TOOLS = ["bash", "web_fetch", "mcp"];

/** What a pattern for `tool` looks like; commands and examples as code, never translated. */
export function ruleHint(tool) {
  if (tool !== "bash") return t(`rules.hint.${tool}`);
  const code = (text) => h("code", { translate: "no" }, text);
  return tNodes("rules.hint.bash", { example: code(t("rules.example.bash")), commands: code("bash -c, find -exec, git -c …") });
}

/** The rules of `permission.rules`: one row each (tool, pattern, allow/deny, where), removable,
 * and a row to add one; Save writes the whole list. A looser list is a settings write: privileged. */
export function rulesBlock(view, ctx) {
  let rules = (view.value?.rules ?? []).map((r) => ({ ...r }));
  const list = h("ul", { class: "rules-list", testid: "rules-list" });
  const save = h("button", { type: "button", class: "btn btn-primary", testid: "rules-save", disabled: true }, t("rules.save"));
  const edited = () => ctx.editing?.("rules", true); // unsaved: a host change does not redraw over it
  const draw = () => {
    list.replaceChildren(
      ...(rules.length
        ? rules.map((r, i) => {
            const remove = h("button", { type: "button", class: "btn btn-ghost btn-icon btn-small", testid: "rule-remove", "aria-label": t("rules.remove") }, icon("x"));
            remove.addEventListener("click", () => {
              rules = rules.filter((_, j) => j !== i);
              save.disabled = false;
              edited();
              draw();
            });
            return h(
              "li",
              { class: ["rule-item", `is-${r.decision ?? "allow"}`], testid: "rule-item", dataset: { tool: r.tool, decision: r.decision ?? "allow" } },
              h("span", { class: "rule-decision" }, t(`rules.decision.${r.decision ?? "allow"}`)),
              h("span", { class: "rule-tool" }, t(`rules.tool.${r.tool}`)),
              h("code", { class: "rule-text", translate: "no" }, r.pattern),
              h("span", { class: "rule-where muted" }, r.folder ? h("span", { translate: "no" }, r.folder) : t("rules.everywhere")),
              remove,
            );
          })
        : [h("li", { class: "muted" }, t("rules.none"))]),
    );
  };
  const tool = h("select", { testid: "rule-new-tool", "aria-label": t("rules.toolLabel") }, TOOLS.map((k) => h("option", { value: k }, t(`rules.tool.${k}`))));
  const pattern = h("input", { type: "text", testid: "rule-new-pattern", placeholder: t("rules.example.bash"), translate: "no", spellcheck: "false", autocomplete: "off", "aria-label": t("rules.pattern") });
  const decision = h("select", { testid: "rule-new-decision", "aria-label": t("rules.decisionLabel") }, ["allow", "deny"].map((k) => h("option", { value: k }, t(`rules.decision.${k}`))));
  const folder = h("input", { type: "text", testid: "rule-new-folder", placeholder: t("rules.everywhere"), translate: "no", spellcheck: "false", autocomplete: "off", "aria-label": t("rules.folderLabel") });
  const hint = h("p", { class: "hint" }, ruleHint("bash"));
  tool.addEventListener("change", () => {
    hint.replaceChildren(ruleHint(tool.value));
    pattern.placeholder = t(`rules.example.${tool.value}`);
  });
  const add = h("button", { type: "button", class: "btn btn-small", testid: "rule-add" }, icon("plus"), h("span", {}, t("rules.add")));
  add.addEventListener("click", () => {
    if (!pattern.value.trim()) return pattern.focus();
    rules.push({ tool: tool.value, pattern: pattern.value.trim(), decision: decision.value, folder: folder.value.trim() || null });
    pattern.value = "";
    save.disabled = false;
    edited();
    draw();
  });
  for (const input of [pattern, folder]) input.addEventListener("input", edited);
  save.addEventListener("click", () => ctx.write("settings.mutate", { ns: "permission", ops: [{ op: "set", path: ["rules"], value: rules }], expectedRevision: view.revision }, save));
  draw();
  return h(
    "div",
    { class: "rules-block", testid: "rules-block", dataset: { settingField: "rules" } },
    h("h4", {}, t("rules.title")),
    h("p", { class: "hint" }, t("rules.intro")),
    list,
    h("div", { class: "rule-new" }, tool, pattern, decision, folder, add),
    hint,
    h("div", { class: "row-actions" }, save),
  );
}

/** `web`: the private hosts web_fetch may reach (one per line of a list), the search provider. */
export function webSection(view, ctx) {
  const value = view.value ?? {};
  let hosts = [...(value.allowedPrivateHosts ?? [])];
  const list = h("ul", { class: "rules-list", testid: "web-hosts" });
  const save = h("button", { type: "button", class: "btn btn-primary", testid: "settings-save-web" }, t("common.save"));
  const draw = () =>
    list.replaceChildren(
      ...(hosts.length
        ? hosts.map((host, i) => {
            const remove = h("button", { type: "button", class: "btn btn-ghost btn-icon btn-small", "aria-label": t("rules.remove") }, icon("x"));
            remove.addEventListener("click", () => {
              hosts = hosts.filter((_, j) => j !== i);
              draw();
            });
            return h("li", { class: "rule-item" }, h("code", { translate: "no" }, host), remove);
          })
        : [h("li", { class: "muted" }, t("web.noHosts"))]),
    );
  const host = h("input", { type: "text", testid: "web-host-new", placeholder: t("web.hostExample"), translate: "no", spellcheck: "false", autocomplete: "off", "aria-label": t("setting.web.allowedPrivateHosts") });
  const addHost = h("button", { type: "button", class: "btn btn-small", testid: "web-host-add" }, icon("plus"), h("span", {}, t("rules.add")));
  addHost.addEventListener("click", () => {
    if (host.value.trim()) hosts.push(host.value.trim());
    host.value = "";
    draw();
  });
  const provider = value.searchProvider ?? null;
  const kind = h("select", { testid: "web-search-kind", "aria-label": t("setting.web.searchProvider") }, ["none", "searxng", "brave"].map((k) => h("option", { value: k }, t(`web.provider.${k}`))));
  kind.value = provider?.kind ?? "none";
  const url = h("input", { type: "text", testid: "web-search-url", value: provider?.url ?? "", placeholder: "http://127.0.0.1:8888", translate: "no", spellcheck: "false", autocomplete: "off", "aria-label": t("web.providerUrl") });
  const key = h("input", { type: "text", testid: "web-search-key", value: provider?.apiKeyEnv ?? "BRAVE_SEARCH_API_KEY", translate: "no", spellcheck: "false", autocomplete: "off", "aria-label": t("web.providerKey") });
  const keyRow = h("div", { class: "field" }, h("label", {}, t("web.providerKey")), key, h("p", { class: "hint" }, t("web.providerKeyHint")));
  const urlRow = h("div", { class: "field" }, h("label", {}, t("web.providerUrl")), url);
  const sync = () => {
    urlRow.hidden = kind.value === "none";
    keyRow.hidden = kind.value !== "brave";
  };
  kind.addEventListener("change", sync);
  sync();
  const edited = () => ctx.editing?.("web", true); // unsaved: a host change does not redraw over it
  save.addEventListener("click", () => {
    const chosen = kind.value === "none" ? null : { kind: kind.value, url: url.value.trim() || null, ...(kind.value === "brave" ? { apiKeyEnv: key.value.trim() } : {}) };
    const ops = [
      { op: "set", path: ["allowedPrivateHosts"], value: hosts },
      { op: "set", path: ["searchProvider"], value: chosen },
    ];
    return ctx.write("settings.mutate", { ns: "web", ops, expectedRevision: view.revision }, save);
  });
  draw();
  const section = h(
    "section",
    { class: "settings-section", testid: "settings-ns-web", "aria-labelledby": "set-ns-web", dataset: { ns: "web" } },
    h("h3", { id: "set-ns-web" }, t("settings.section.web")),
    h("div", { class: "field", dataset: { settingField: "allowedPrivateHosts" } }, h("label", {}, t("setting.web.allowedPrivateHosts")), list, h("div", { class: "rule-new" }, host, addHost), h("p", { class: "hint" }, t("setting.web.allowedPrivateHosts.hint"))),
    h("div", { class: "field", dataset: { settingField: "searchProvider" } }, h("label", {}, t("setting.web.searchProvider")), kind, h("p", { class: "hint" }, t("setting.web.searchProvider.hint"))),
    urlRow,
    keyRow,
    h("div", { class: "row-actions" }, save),
  );
  section.addEventListener("input", edited);
  section.addEventListener("change", edited);
  section.addEventListener("click", (e) => e.target.closest?.("button") && e.target.closest("button") !== save && edited());
  return section;
}

/** `lsp`: each language server, found or not, running where, and a switch to turn it off. */
export function lspSection(view, ctx) {
  const body = h("div", { class: "lsp-servers", testid: "lsp-servers" }, h("p", { class: "muted" }, t("lsp.loading")));
  const off = new Set(view.value?.disabled ?? []);
  ctx.call("lsp.status", {}).then((r) => {
    if (!r.ok) return body.replaceChildren(h("p", { class: "card-error" }, ctx.problem(r.error)));
    const rows = r.value.servers.map((s) => {
      const box = h("input", { type: "checkbox", testid: `lsp-enabled-${s.id}`, checked: !off.has(s.id) });
      box.addEventListener("change", () => {
        if (box.checked) off.delete(s.id);
        else off.add(s.id);
        ctx.write("settings.mutate", { ns: "lsp", ops: [{ op: "set", path: ["disabled"], value: [...off] }], expectedRevision: view.revision }, box);
      });
      const state = !s.command ? t("lsp.notInstalled") : s.folders.length ? t("lsp.running", { count: s.folders.length }) : s.problem ? s.problem : t("lsp.idle");
      return h(
        "li",
        { class: "rule-item", testid: "lsp-server", dataset: { server: s.id, running: String(s.folders.length > 0) } },
        h("label", { class: "choice" }, box, h("strong", { translate: "no" }, s.id)),
        h("span", { class: "muted", translate: "no" }, s.languages.join(", ")),
        h("span", { class: "muted" }, state),
      );
    });
    body.replaceChildren(h("ul", { class: "rules-list" }, rows), r.value.sandboxed ? null : h("p", { class: "hint" }, t("lsp.noSandbox")));
  });
  return h(
    "section",
    { class: "settings-section", testid: "settings-ns-lsp", "aria-labelledby": "set-ns-lsp", dataset: { ns: "lsp" } },
    h("h3", { id: "set-ns-lsp" }, t("settings.section.lsp")),
    h("p", { class: "hint" }, t("lsp.intro")),
    body,
  );
}
