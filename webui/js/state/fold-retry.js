// Retry replaces the failed message (docs/decisions.md, "Review and context"): a prompt that
// repeats the message of the turn just before it, which ended in an error, is that message's
// retry. The failed attempt then folds into one line instead of a second, identical bubble.
// Derived from the history alone, so a reload shows the same. No DOM.

/** Called with a new (non-steering) user row; marks the failed attempt it retries, if any. */
export function markRetry(fold, user) {
  for (let i = fold.items.length - 2; i >= 0; i--) {
    const it = fold.items[i];
    if (it.kind === "user" && !it.steering) return; // another message came between
    if (it.kind !== "turn-end") continue;
    if (it.reason?.kind !== "error" || !it.userItemId) return;
    const failed = fold.byId.get(it.userItemId);
    if (!failed || failed.retried || !sameContent(failed.content, user.content)) return;
    failed.retried = true;
    it.retried = true;
    fold.touch(failed);
    fold.touch(it);
    return;
  }
}

/** Same text in the same order, and as many images (a retry re-attaches them as new uploads). */
function sameContent(a, b) {
  const key = (content) => JSON.stringify(content.map((x) => (x.type === "text" ? ["t", x.text] : [x.type])));
  return key(a) === key(b);
}
