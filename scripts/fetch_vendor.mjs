#!/usr/bin/env node
// Fetch the web UI's third-party code into webui/vendor/ from the npm registry only.
//
//   node scripts/fetch_vendor.mjs          fetch, verify and (re)write webui/vendor/
//   node scripts/fetch_vendor.mjs --check  fetch, verify and compare with the committed files
//
// Each package is pinned by exact version and by the sha512 integrity of its registry tarball.
// The tarball comes from `npm pack <name>@<version>` (the ordinary npm client, no other host);
// its sha512 is computed here and must equal the pin before anything is extracted. Only the
// listed files and the licence files are copied. The result is committed so the app works
// offline; this script is only needed to update or audit the vendored code.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const VENDOR_DIR = join(ROOT, "webui", "vendor");

const HLJS_LANGUAGES = [
  "bash", "c", "cpp", "css", "diff", "go", "java", "javascript", "json", "markdown",
  "python", "rust", "shell", "sql", "typescript", "xml", "yaml",
];

export const PINS = [
  {
    name: "marked",
    version: "18.2.1",
    integrity: "sha512-ii4bxCTCqqwpT86XZWgJNs+ZnAIZksmLGYMViWA7PDIXYIeNo1x6cDdX3JOip9NM/cI6p8z57FxliACboTruMA==",
    dir: "marked",
    files: { "lib/marked.esm.js": "marked.esm.js" },
    licenses: ["LICENSE"],
  },
  {
    name: "dompurify",
    version: "3.5.0",
    integrity: "sha512-LYC0ZkE8P1V42JsRYTwMdme/2ET8SpOc5AA2eOFjP/IadvRd2fwiT4TVz5vkfy0XUx12aS2UaRkTnfVPNOv9vw==",
    dir: "dompurify",
    files: { "dist/purify.es.mjs": "purify.es.mjs" },
    licenses: ["LICENSE", "LICENSE-MPL"],
  },
  {
    name: "@highlightjs/cdn-assets",
    version: "11.12.0",
    integrity: "sha512-KvOKXODaiFmId9xaq3xc5xCL66wVLUuOngDbO9B/kewbFTqdGbn2nJxNhN3H5R1cgDTVj6R8vH0zgiNDEGjpDw==",
    dir: "highlight",
    files: Object.fromEntries([
      ["es/core.min.js", "core.min.js"],
      ...HLJS_LANGUAGES.map((l) => [`es/languages/${l}.min.js`, `languages/${l}.min.js`]),
    ]),
    licenses: ["LICENSE"],
  },
  // the Terminal pane (docs/decisions.md, "Terminal and files"): xterm.js's ES module build and
  // its stylesheet, and three of its addons
  {
    name: "@xterm/xterm",
    version: "6.0.0",
    integrity: "sha512-TQwDdQGtwwDt+2cgKDLn0IRaSxYu1tSUjgKarSDkUM0ZNiSRXFpjxEsvc/Zgc5kq5omJ+V0a8/kIM2WD3sMOYg==",
    dir: "xterm",
    files: { "lib/xterm.mjs": "xterm.mjs", "css/xterm.css": "xterm.css" },
    licenses: ["LICENSE"],
  },
  {
    name: "@xterm/addon-fit",
    version: "0.11.0",
    integrity: "sha512-jYcgT6xtVYhnhgxh3QgYDnnNMYTcf8ElbxxFzX0IZo+vabQqSPAjC3c1wJrKB5E19VwQei89QCiZZP86DCPF7g==",
    dir: "xterm-addon-fit",
    files: { "lib/addon-fit.mjs": "addon-fit.mjs" },
    licenses: ["LICENSE"],
  },
  {
    name: "@xterm/addon-search",
    version: "0.16.0",
    integrity: "sha512-9OeuBFu0/uZJPu+9AHKY6g/w0Czyb/Ut0A5t79I4ULoU4IfU5BEpPFVGQxP4zTTMdfZEYkVIRYbHBX1xWwjeSA==",
    dir: "xterm-addon-search",
    files: { "lib/addon-search.mjs": "addon-search.mjs" },
    licenses: ["LICENSE"],
  },
  {
    name: "@xterm/addon-web-links",
    version: "0.12.0",
    integrity: "sha512-4Smom3RPyVp7ZMYOYDoC/9eGJJJqYhnPLGGqJ6wOBfB8VxPViJNSKdgRYb8NpaM6YSelEKbA2SStD7lGyqaobw==",
    dir: "xterm-addon-web-links",
    files: { "lib/addon-web-links.mjs": "addon-web-links.mjs" },
    licenses: ["LICENSE"],
  },
];

/** Minimal ustar reader: {path → Buffer} for regular files (handles pax and GNU long names). */
export function untar(buf) {
  const out = new Map();
  let off = 0;
  let longName = null;
  let paxPath = null;
  const str = (b) => b.toString("utf8").replace(/\0.*$/s, "");
  while (off + 512 <= buf.length) {
    const header = buf.subarray(off, off + 512);
    if (header.every((b) => b === 0)) break;
    const size = parseInt(str(header.subarray(124, 136)).trim() || "0", 8);
    const type = String.fromCharCode(header[156] || 48);
    const prefix = str(header.subarray(345, 500));
    let name = str(header.subarray(0, 100));
    if (prefix) name = `${prefix}/${name}`;
    const body = buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") { longName = str(body); continue; }
    if (type === "x") {
      const m = /\d+ path=([^\n]*)\n/.exec(body.toString("utf8"));
      paxPath = m ? m[1] : null;
      continue;
    }
    if (type === "g") continue;
    const path = paxPath ?? longName ?? name;
    paxPath = null;
    longName = null;
    if (type === "0" || type === "\0") out.set(path, Buffer.from(body));
  }
  return out;
}

function npmPack(spec, dest) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const json = execFileSync(npm, ["pack", spec, "--json", "--pack-destination", dest], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    shell: process.platform === "win32",
  });
  const info = JSON.parse(json)[0];
  return { file: join(dest, info.filename), reported: info.integrity };
}

function sri(buf) {
  return `sha512-${createHash("sha512").update(buf).digest("base64")}`;
}

function main() {
  const check = process.argv.includes("--check");
  const tmp = mkdtempSync(join(tmpdir(), "hd-vendor-"));
  const manifest = [];
  let mismatches = 0;
  try {
    for (const pin of PINS) {
      const { file, reported } = npmPack(`${pin.name}@${pin.version}`, tmp);
      const tgz = readFileSync(file);
      const actual = sri(tgz);
      if (actual !== pin.integrity || (reported && reported !== pin.integrity)) {
        throw new Error(`${pin.name}@${pin.version}: integrity mismatch\n  pinned ${pin.integrity}\n  got    ${actual}`);
      }
      const entries = untar(gunzipSync(tgz));
      const copies = [
        ...Object.entries(pin.files),
        ...pin.licenses.map((l) => [l, l]),
      ];
      const files = {};
      for (const [src, dst] of copies) {
        const data = entries.get(`package/${src}`);
        if (!data) throw new Error(`${pin.name}: ${src} not in the tarball`);
        const target = join(VENDOR_DIR, pin.dir, dst);
        files[`${pin.dir}/${dst}`] = { bytes: data.length, sha256: createHash("sha256").update(data).digest("hex") };
        if (check) {
          if (!existsSync(target) || !readFileSync(target).equals(data)) {
            console.error(`differs: webui/vendor/${pin.dir}/${dst}`);
            mismatches++;
          }
        } else {
          mkdirSync(dirname(target), { recursive: true });
          writeFileSync(target, data);
        }
      }
      manifest.push({ name: pin.name, version: pin.version, integrity: pin.integrity, files });
      console.log(`${pin.name}@${pin.version}: ${Object.keys(files).length} files ok`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  const text = `${JSON.stringify({ generatedBy: "scripts/fetch_vendor.mjs", packages: manifest }, null, 2)}\n`;
  const manifestPath = join(VENDOR_DIR, "vendor.json");
  if (check) {
    if (!existsSync(manifestPath) || readFileSync(manifestPath, "utf8") !== text) {
      console.error("differs: webui/vendor/vendor.json");
      mismatches++;
    }
    if (mismatches) process.exit(1);
    console.log("vendor files match the pinned packages");
  } else {
    writeFileSync(manifestPath, text);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
