/**
 * The readings of an outgoing string a guard can compute cheaply: the string itself, its URL-decoded form (a URL
 * is read as its decoded path and query, parameter by parameter), and the decodings of base64 / base64url and hex
 * runs inside it, to a small depth. Used by data-flow matching so that encoding does not hide data.
 */

const MAX_DEPTH = 3;
const MAX_VIEWS = 64;
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /\b(?:[0-9a-fA-F]{2}){12,}\b/g;

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

/**
 * Every reading of `s`: itself first, then decodings (URL parts, URL-decoded text, base64 and hex runs),
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
    for (const p of urlParts(text)) visit(p, depth + 1);
    const u = urlDecoded(text);
    if (u !== undefined) visit(u, depth + 1);
    // Whitespace inside an encoded run (line-wrapped base64) is removed before looking for runs.
    const compact = text.replace(/\s+/g, '');
    for (const m of compact.matchAll(BASE64_RUN)) {
      const d = base64Decoded(m[0]);
      if (d !== undefined) visit(d, depth + 1);
    }
    for (const m of text.matchAll(HEX_RUN)) {
      const d = Buffer.from(m[0], 'hex').toString('utf8');
      if (printable(d)) visit(d, depth + 1);
    }
  };
  visit(s, 0);
  return out;
}
