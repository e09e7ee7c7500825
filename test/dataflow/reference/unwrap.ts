/**
 * The readings of an outgoing string a guard can compute cheaply: the string itself, its URL-decoded form (a URL
 * is read as its decoded path and query, parameter by parameter), and the decodings of base64 / base64url and hex
 * runs inside it, to a small depth. Used by data-flow matching so that encoding does not hide data.
 */

import { plainReading } from '../../../src/core/text/readings.js';

const MAX_DEPTH = 3;
const MAX_VIEWS = 64;
const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /[0-9a-fA-F]{24,}/g;

/** Whether decoded bytes look like text (so random tokens do not become noise views); the string iterator, one string per code point (test/core/text/printable.test.ts compares core/text's with it). */
export function printable(s: string): boolean {
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
    // The plain reading is not what the fast path short-cuts: the reference takes it as it is.
    const plain = plainReading(text);
    if (plain !== text) visit(plain, depth + 1);
    for (const p of urlParts(text)) visit(p, depth + 1);
    const u = urlDecoded(text);
    if (u !== undefined) visit(u, depth + 1);
    // Line-wrapped base64 (lines of 40 or more base64 characters) is joined before looking for runs; other
    // whitespace is kept, so ordinary words are never glued into one long run.
    const compact = text.replace(/([A-Za-z0-9+/_=-]{40,})\r?\n[ \t]*(?=[A-Za-z0-9+/_-])/g, '$1');
    // A run may start mid-word (a field joined to the one before it): try every alignment of the encoding.
    for (const m of compact.matchAll(BASE64_RUN)) {
      for (let off = 0; off < 4 && m[0].length - off >= 16; off++) {
        const d = base64Decoded(m[0].slice(off));
        if (d !== undefined) visit(d, depth + 1);
      }
    }
    for (const m of compact.matchAll(HEX_RUN)) {
      for (let off = 0; off < 2; off++) {
        const run = m[0].slice(off, off + Math.floor((m[0].length - off) / 2) * 2);
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
