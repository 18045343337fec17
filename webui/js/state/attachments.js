// Stored attachments on the client: session.attachment → bytes → a blob: URL, fetched once per
// attachment (a failed fetch is forgotten, so the next look tries again). Used through TurnCalls.

const cache = new Map(); // attachmentId → Promise<{url, data, mediaType, name}>

export function base64ToBytes(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Fetch an attachment once: {url (blob:), data (base64), mediaType, name}; rejects when unavailable. */
export function loadAttachment(client, sessionId, ref) {
  const key = ref.attachmentId;
  if (!cache.has(key)) {
    const p = client.call("session.attachment", { sessionId, attachmentId: key }).then((r) => {
      if (!r.ok) throw new Error(r.error.message);
      const blob = new Blob([base64ToBytes(r.value.data)], { type: r.value.attachment.mediaType });
      return { url: URL.createObjectURL(blob), data: r.value.data, mediaType: r.value.attachment.mediaType, name: r.value.attachment.name };
    });
    p.catch(() => cache.delete(key));
    cache.set(key, p);
  }
  return cache.get(key);
}
