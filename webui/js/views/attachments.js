// Images: thumbnails of stored attachments (fetched by state/attachments.js through TurnCalls),
// and pasted/dropped files → base64 image content for session.prompt.

import { h } from "./dom.js";
import { t } from "../i18n/i18n.js";

export const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/gif"]);
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export function bytesToBase64(bytes) {
  let bin = "";
  const step = 0x8000;
  for (let i = 0; i < bytes.length; i += step) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + step));
  return btoa(bin);
}

/** A thumbnail element for an image content block; loads lazily. */
export function attachmentThumb(turns, sessionId, ref) {
  const label = ref.name || t("attach.imageSize", { width: String(ref.width), height: String(ref.height) });
  const fig = h("figure", { class: "thumb loading", testid: "image-thumb", dataset: { attachmentId: ref.attachmentId } });
  const img = h("img", { alt: label, width: Math.min(ref.width || 160, 240), decoding: "async" });
  fig.append(img);
  turns.attachment(sessionId, ref).then(
    (a) => {
      img.src = a.url;
      fig.classList.remove("loading");
    },
    () => {
      fig.classList.remove("loading");
      fig.classList.add("failed");
      fig.append(h("figcaption", {}, t("attach.unavailable")));
    },
  );
  return fig;
}

/** A File (paste/drop/picker) → {type:"image", mediaType, data, name} or an error string. */
export async function fileToImageInput(file) {
  if (!IMAGE_TYPES.has(file.type)) return { error: t("attach.wrongType", { name: file.name || t("attach.file") }) };
  if (file.size > MAX_IMAGE_BYTES) return { error: t("attach.tooLarge", { name: file.name || t("attach.image") }) };
  const bytes = new Uint8Array(await file.arrayBuffer());
  const input = { type: "image", mediaType: file.type, data: bytesToBase64(bytes) };
  if (file.name) input.name = file.name;
  return { input, url: URL.createObjectURL(file) };
}

/** Content blocks of a logged message → prompt input (images re-fetched as base64). */
export async function contentToPromptInput(turns, sessionId, content) {
  const out = [];
  for (const b of content ?? []) {
    if (b.type === "text" && b.text) out.push({ type: "text", text: b.text });
    else if (b.type === "image" && b.attachment) {
      const a = await turns.attachment(sessionId, b.attachment);
      const input = { type: "image", mediaType: a.mediaType, data: a.data };
      if (b.attachment.name) input.name = b.attachment.name;
      out.push(input);
    } else if (b.type === "image" && b.data) out.push(b);
  }
  return out;
}
