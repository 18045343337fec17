// Guards in front of two of marked's tokenizers (docs/decisions/markdown-in-the-window.md). In
// the window's JavaScript engine (WebKit's) the GFM autolink rule (`url`) and the setext heading
// rule (`lheading`) cost time in proportion to all the text after the place they are tried at,
// and they are tried at every inline token and every block: a streamed paragraph of a few
// thousand characters took tens of milliseconds to lex per frame. Each guard answers "no token"
// at once where its rule cannot match, and otherwise hands over to marked's own rule (`false` =
// "use the built-in tokenizer"), so the tokens are exactly marked's.

/** What an autolink can start with: a scheme marked knows, `www.`, or an e-mail's local part. */
const URL_START = /^(?:(?:https?|ftp):\/\/|www\.|(?:mailto|xmpp):|[A-Za-z0-9._+-]+@)/i;

/** A setext heading needs an underline: a line of `=` or `-` (after at most three spaces). */
const SETEXT_UNDERLINE = /\n {0,3}[=-]/;

export const guardedTokenizer = {
  url(src) {
    return URL_START.test(src) ? false : undefined;
  },
  lheading(src) {
    return SETEXT_UNDERLINE.test(src) ? false : undefined;
  },
};
