// Markdown for model output: marked → DOMPurify (no raw HTML survives: scripts, handlers,
// styles, iframes, forms) → highlight.js on code blocks → copy buttons. The sanitised HTML is
// the only innerHTML the app writes.

import { Marked } from "../../vendor/marked/marked.esm.js";
import DOMPurify from "../../vendor/dompurify/purify.es.mjs";
import hljs from "../../vendor/highlight/core.min.js";
import bash from "../../vendor/highlight/languages/bash.min.js";
import c from "../../vendor/highlight/languages/c.min.js";
import cpp from "../../vendor/highlight/languages/cpp.min.js";
import css from "../../vendor/highlight/languages/css.min.js";
import diff from "../../vendor/highlight/languages/diff.min.js";
import go from "../../vendor/highlight/languages/go.min.js";
import java from "../../vendor/highlight/languages/java.min.js";
import javascript from "../../vendor/highlight/languages/javascript.min.js";
import json from "../../vendor/highlight/languages/json.min.js";
import markdown from "../../vendor/highlight/languages/markdown.min.js";
import python from "../../vendor/highlight/languages/python.min.js";
import rust from "../../vendor/highlight/languages/rust.min.js";
import shell from "../../vendor/highlight/languages/shell.min.js";
import sql from "../../vendor/highlight/languages/sql.min.js";
import typescript from "../../vendor/highlight/languages/typescript.min.js";
import xml from "../../vendor/highlight/languages/xml.min.js";
import yaml from "../../vendor/highlight/languages/yaml.min.js";
import { h, icon, copyText } from "./dom.js";
import { guardedTokenizer } from "./markdown-guards.js";
import { t } from "../i18n/i18n.js";

const LANGS = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, def] of Object.entries(LANGS)) hljs.registerLanguage(name, def);
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["js", "mjs", "jsx"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["md"], { languageName: "markdown" });
hljs.configure({ ignoreUnescapedHTML: true });

const escapeHtml = (s) => s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);

/** Small models write "1. 1. Boil water" (a list item holding nothing but a one-item list: two
 * numbers for one step) and empty items and fences; a person reads each step once and sees no
 * empty box (docs/decisions.md, "A day's work without friction"). */
function tidyList(token) {
  if (token.type !== "list") return;
  token.items = token.items
    .map((item) => {
      const only = item.tokens?.length === 1 ? item.tokens[0] : null;
      if (only?.type === "list" && only.items.length === 1) return { ...only.items[0], loose: item.loose };
      return item;
    })
    .filter((item) => item.task || (item.tokens ?? []).some((x) => x.type !== "space"));
}

// Off while a streamed code block is still open (markdownToHtml's `highlight`): highlight.js
// takes tens of milliseconds per few kilobytes in the window's JavaScript engine, and the open
// block is rendered again every frame (docs/decisions/markdown-in-the-window.md).
let highlighting = true;

const marked = new Marked({
  gfm: true,
  breaks: false,
  walkTokens: tidyList,
  tokenizer: guardedTokenizer,
  renderer: {
    code({ text, lang }) {
      if (!String(text ?? "").trim()) return ""; // an empty fence shows no empty box
      const language = (lang ?? "").trim().split(/\s+/)[0].toLowerCase();
      let body;
      if (highlighting && language && hljs.getLanguage(language)) {
        try {
          body = hljs.highlight(text, { language, ignoreIllegals: true }).value;
        } catch {
          body = escapeHtml(text);
        }
      } else {
        body = escapeHtml(text);
      }
      const label = language ? `<span class="code-lang">${escapeHtml(language)}</span>` : "";
      return `<div class="code-block">${label}<pre><code class="hljs${language ? ` language-${escapeHtml(language)}` : ""}">${body}</code></pre></div>`;
    },
    html({ text }) {
      return escapeHtml(text); // raw HTML in model output is shown as text, never parsed
    },
  },
});

const PURIFY = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "iframe", "object", "embed", "img", "video", "audio", "svg", "math"],
  FORBID_ATTR: ["style", "srcset", "action", "formaction"],
  ALLOW_DATA_ATTR: false,
};

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

/** A file's text as highlighted HTML (the Files pane's viewer); escaped text for an unknown
 * language or text highlight.js gives up on. */
export function codeHtml(text, language) {
  if (!language || !hljs.getLanguage(language)) return escapeHtml(text);
  try {
    return DOMPurify.sanitize(hljs.highlight(text, { language, ignoreIllegals: true }).value, PURIFY);
  } catch {
    return escapeHtml(text);
  }
}

/** Sanitised HTML string for markdown text (exported for tests in a browser). `highlight`:
 * false renders code blocks as plain text (a streamed block still open). */
export function markdownToHtml(text, { highlight = true } = {}) {
  let html;
  highlighting = highlight;
  try {
    html = marked.parse(text ?? "", { async: false });
  } catch {
    html = `<p>${escapeHtml(text ?? "")}</p>`;
  } finally {
    highlighting = true;
  }
  return DOMPurify.sanitize(html, PURIFY);
}

// Settled texts come back often (a row scrolled out and in again, a session opened again): their
// sanitised HTML is kept, most recently used first, up to a fixed size whatever the sessions.
const CACHE_CHARS = 2_000_000;
const htmlCache = new Map();
let cacheChars = 0;

function cachedHtml(text) {
  const hit = htmlCache.get(text);
  if (hit !== undefined) {
    htmlCache.delete(text);
    htmlCache.set(text, hit);
    return hit;
  }
  const html = markdownToHtml(text);
  if (text.length + html.length > CACHE_CHARS / 8) return html;
  htmlCache.set(text, html);
  cacheChars += text.length + html.length;
  for (const [k, v] of htmlCache) {
    if (cacheChars <= CACHE_CHARS) break;
    htmlCache.delete(k);
    cacheChars -= k.length + v.length;
  }
  return html;
}

/** Render markdown into `el` (replacing its content) and add copy buttons to code blocks.
 * `cache`: a settled text (one that will not change), whose HTML is worth keeping; `highlight`:
 * false for a streamed text whose last code block is still open (markdownToHtml). */
export function renderMarkdownInto(el, text, { cache = false, highlight = true } = {}) {
  el.innerHTML = cache ? cachedHtml(text ?? "") : markdownToHtml(text, { highlight });
  for (const block of el.querySelectorAll(".code-block")) {
    const code = block.querySelector("code");
    const btn = h(
      "button",
      { type: "button", class: "btn btn-icon copy-code", testid: "copy-code", title: t("markdown.copy"), "aria-label": t("markdown.copy"), translate: "yes" },
      icon("copy"),
    );
    btn.addEventListener("click", async () => {
      const ok = await copyText(code?.textContent ?? "");
      btn.classList.toggle("copied", ok);
      btn.title = ok ? t("markdown.copied") : t("markdown.copyFailed");
      setTimeout(() => {
        btn.classList.remove("copied");
        btn.title = t("markdown.copy");
      }, 1500);
    });
    block.prepend(btn);
  }
  return el;
}
