// Text a model wrote, shown where a person might take it for the app's own words (a subagent's
// label on an approval card): one plain, short line (docs/decisions.md, "Subagent labels").

const MAX = 80;

/** No control, format (bidi) or line-separator characters, no quotation marks that could close
 * the quote around it early, whitespace collapsed, at most 80 characters; "task" when empty. */
export function modelWords(text) {
  const line = String(text ?? "")
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, " ")
    .replace(/["“”„‟«»‹›〝〞＂]/g, "'")
    .replace(/\s+/g, " ")
    .trim();
  if (!line) return "task";
  return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
}
