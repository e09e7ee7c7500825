/**
 * The readings of an outgoing string a guard can compute cheaply: the string itself, its plain reading (HTML
 * references, backslash escapes, full-width forms and zero-width characters undone), its URL-decoded form (a URL
 * is read as its decoded path and query, parameter by parameter), and the decodings of base64 / base64url and hex
 * runs inside it, to a small depth. Used by data-flow matching so that encoding does not hide data.
 */

const MAX_DEPTH = 3;
const MAX_VIEWS = 64;

/** Characters of base64 and base64url (1), also hex digits (2), and `=` (4). */
const RUN_CLASS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-') RUN_CLASS[c.charCodeAt(0)] = 1;
for (const c of '0123456789abcdefABCDEF') RUN_CLASS[c.charCodeAt(0)] = 3;
RUN_CLASS[61] = 4;

/**
 * The matches, as (start, end) pairs, of `/[A-Za-z0-9+/_-]{16,}={0,2}/g` (`bit` 1, `min` 16, `pad` 2) or of
 * `/[0-9a-fA-F]{24,}/g` (`bit` 2, `min` 24, `pad` 0) in `s`, in one pass: each maximal run of the class long enough,
 * with the padding that follows it — the leftmost match of such a pattern is always a whole maximal run.
 */
function runs(s: string, bit: number, min: number, pad: number): number[] {
  const out: number[] = [];
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const c = i < s.length ? s.charCodeAt(i) : 0;
    if (c < 128 && (RUN_CLASS[c]! & bit) !== 0) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= min) {
      let end = i;
      while (end - i < pad && end < s.length && s.charCodeAt(end) === 61) end++;
      out.push(start, end);
      // The padding is part of the match: the next run starts after it.
      i = end - 1;
    }
    start = -1;
  }
  return out;
}

/**
 * Whether `s` may hold a line of 40 or more base64 characters (`=` included) ended by a line break: what joining
 * wrapped base64 needs. Without one, the join would change nothing.
 */
function mayHaveWrappedBase64(s: string): boolean {
  // From each line break (found natively) back over the 40 characters before it (before a `\r` ending the line).
  for (let j = s.indexOf('\n'); j >= 0; j = s.indexOf('\n', j + 1)) {
    const end = j > 0 && s.charCodeAt(j - 1) === 13 ? j - 1 : j;
    if (end < 40) continue;
    let i = end - 1;
    while (i >= end - 40) {
      const c = s.charCodeAt(i);
      if (c >= 128 || RUN_CLASS[c] === 0) break;
      i--;
    }
    if (i < end - 40) return true;
  }
  return false;
}

/** Whether decoded bytes look like text (so random tokens do not become noise views). */
function printable(s: string): boolean {
  if (s.length === 0) return false;
  let bad = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 13)) bad++;
  }
  return bad / s.length < 0.05;
}

/** Mostly printable ASCII: the stricter test for a short field decoded as a whole (short base64 is ambiguous). */
function texty(s: string): boolean {
  if (s.length === 0) return false;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13) ok++;
  }
  return ok / s.length >= 0.85;
}

function urlDecoded(s: string): string | undefined {
  if (!/%[0-9a-fA-F]{2}|\+/.test(s)) return undefined;
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    // Partly malformed escapes: decode those that are well formed.
    return s.replace(/\+/g, ' ').replace(/(?:%[0-9a-fA-F]{2})+/g, (m) => {
      try {
        return decodeURIComponent(m);
      } catch {
        return m;
      }
    });
  }
}

function base64Decoded(run: string): string | undefined {
  const b64 = run.replace(/-/g, '+').replace(/_/g, '/');
  const text = Buffer.from(b64, 'base64').toString('utf8');
  return printable(text) ? text : undefined;
}

/** A URL's decoded path, query values and fragment, when `s` is an absolute URL. */
function urlParts(s: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s.trim())) return [];
  try {
    const u = new URL(s.trim());
    const parts = [u.hostname, safeDecode(u.pathname)];
    for (const [k, v] of u.searchParams) parts.push(k, v);
    if (u.hash) parts.push(safeDecode(u.hash.slice(1)));
    // Labels of the host (data smuggled as subdomains) read as one text.
    parts.push(u.hostname.split('.').join(' '));
    return parts;
  } catch {
    return [];
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** A character some reading starts from: non-ASCII, `&`, a backslash, `%`, `+` (one negated class: a fast scan). */
const ESCAPE_CHAR = /[^\x00-\x24\x27-\x2a\x2c-\x5b\x5d-\x7f]/;
const BASE64_RUN_16 = /[A-Za-z0-9/_-]{16}/;

/**
 * Whether `s` may have a reading that is not a base64 or hex run: a plain reading, URL parts or URL decoding need
 * a non-ASCII character, `&`, a backslash, `%`, `+` or `://`.
 */
export function mayHaveEscapes(s: string): boolean {
  return ESCAPE_CHAR.test(s) || s.includes('://');
}

/**
 * Whether `s` may have a reading other than itself: an escape (`mayHaveEscapes`) or a run of 16 base64 characters
 * (every hex run of 24 holds one). False: `unwrapViews(s)` is `[s]`.
 */
export function mayHaveReadings(s: string): boolean {
  return mayHaveEscapes(s) || BASE64_RUN_16.test(s);
}

/**
 * Every reading of `s`: itself first, then decodings (plain reading, URL parts, URL-decoded text, base64 and hex runs),
 * recursively to depth 3 and at most 64 views.
 */
export function unwrapViews(s: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (text: string, depth: number) => {
    if (out.length >= MAX_VIEWS || seen.has(text)) return;
    seen.add(text);
    out.push(text);
    if (depth >= MAX_DEPTH) return;
    // HTML references, backslash escapes, full-width forms, zero-width characters undone.
    const plain = plainReading(text);
    if (plain !== text) visit(plain, depth + 1);
    for (const p of urlParts(text)) visit(p, depth + 1);
    const u = urlDecoded(text);
    if (u !== undefined) visit(u, depth + 1);
    // Line-wrapped base64 (lines of 40 or more base64 characters) is joined before looking for runs; other
    // whitespace is kept, so ordinary words are never glued into one long run.
    const compact = mayHaveWrappedBase64(text) ? text.replace(/([A-Za-z0-9+/_=-]{40,})\r?\n[ \t]*(?=[A-Za-z0-9+/_-])/g, '$1') : text;
    // A run may start mid-word (a field joined to the one before it): try every alignment of the encoding.
    const b64 = runs(compact, 1, 16, 2);
    for (let r = 0; r < b64.length; r += 2) {
      const m = compact.slice(b64[r], b64[r + 1]);
      for (let off = 0; off < 4 && m.length - off >= 16; off++) {
        const d = base64Decoded(m.slice(off));
        if (d !== undefined) visit(d, depth + 1);
      }
    }
    const hex = runs(compact, 2, 24, 0);
    for (let r = 0; r < hex.length; r += 2) {
      const m = compact.slice(hex[r], hex[r + 1]);
      for (let off = 0; off < 2; off++) {
        const run = m.slice(off, off + Math.floor((m.length - off) / 2) * 2);
        const d = Buffer.from(run, 'hex').toString('utf8');
        if (printable(d)) visit(d, depth + 1);
      }
    }
  };
  visit(s, 0);
  return out;
}

/**
 * A field decoded as a whole, repeatedly (at most 3 times): URL encoding, then base64 / base64url, then hex, while
 * the whole field is one of them and decodes to text. Used to join fields that were split and then encoded one by
 * one.
 */
export function decodeWhole(s: string): string {
  let cur = s;
  for (let n = 0; n < MAX_DEPTH; n++) {
    const t = cur.trim();
    const compact = t.replace(/\s+/g, '');
    let next: string | undefined;
    if (/%[0-9a-fA-F]{2}/.test(t)) next = urlDecoded(t);
    else if (compact.length >= 8 && /^(?:[0-9a-fA-F]{2})+$/.test(compact) && printable(Buffer.from(compact, 'hex').toString('utf8'))) {
      next = Buffer.from(compact, 'hex').toString('utf8');
    } else if (compact.length >= 8 && /^[A-Za-z0-9+/_-]+={0,2}$/.test(compact) && /[A-Z0-9+/=_-]/.test(compact) && compact.length % 4 !== 1) {
      const d = base64Decoded(compact);
      next = d !== undefined && texty(d) ? d : undefined;
    }
    if (next === undefined || next === cur) return cur;
    cur = next;
  }
  return cur;
}

/** Escapes and look-alike forms a plain reading undoes (the test is cheap; most texts skip everything). */
const PLAIN_HINT = /[^\x00-\x7f]|&#|&(?:amp|lt|gt|quot|apos);|\\[ux]/i;
const ENTITY = /&#(?:x([0-9a-f]{1,6})|(\d{1,7}));?|&(amp|lt|gt|quot|apos);/gi;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const ESCAPE = /\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi;
/** Invisible format characters (zero-width space and joiners, soft hyphen, bidi controls, tag characters). */
const FORMAT_CHARS = /\p{Cf}/gu;

function fromCode(hex: string | undefined, dec: string | undefined): string {
  const cp = hex !== undefined ? parseInt(hex, 16) : Number(dec);
  return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
}

/**
 * `s` as a reader sees it once escapes are undone: HTML character references (`&#103;`, `&#x67;`, `&amp;`),
 * backslash escapes (`\u0067`, `\u{67}`, `\x67`), compatibility forms folded (NFKC: full-width `ｇｈｐ＿` is `ghp_`)
 * and invisible format characters (zero-width, soft hyphen, bidi) removed. The same string when there is nothing
 * to undo.
 */
export function plainReading(s: string): string {
  if (!PLAIN_HINT.test(s)) return s;
  let t = s.replace(ENTITY, (_m, hex: string | undefined, dec: string | undefined, named: string | undefined) => (named !== undefined ? NAMED[named.toLowerCase()]! : fromCode(hex, dec)));
  t = t.replace(ESCAPE, (_m, braced: string | undefined, four: string | undefined, two: string | undefined) => fromCode(braced ?? four ?? two, undefined));
  return t.normalize('NFKC').replace(FORMAT_CHARS, '');
}
