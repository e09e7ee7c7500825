/**
 * Secret masking for everything the store keeps in clear (audit previews, rationales, URIs). Audit rows are
 * read by people and exported; a credential that passed through the proxy must never be readable there. The
 * patterns are the detectors' one secrets catalogue (src/detectors/secrets/catalogue.ts).
 */
import { maskSpans, type SecretSpan } from '../detectors/secrets/catalogue.js';

export type { SecretSpan };

/** Every secret found in `text` (the detectors' secrets catalogue, masking superset), sorted and merged. */
export function findSecrets(text: string): SecretSpan[] {
  return maskSpans(text);
}

/** `text` with every secret replaced by `[REDACTED:<kind>]`. */
export function maskSecrets(text: string): string {
  return maskPrefix(text, Number.POSITIVE_INFINITY);
}

/** Longest secret assumed to be recognisable only when seen whole (PEM blocks are matched up to the end anyway). */
const LOOKAHEAD = 512;

/**
 * The first `max` characters of the masked text, followed by `…` when cut. Only a window of the input is
 * scanned (so a 10 MB payload costs no more than a short one), and the window always reaches at least
 * `LOOKAHEAD` characters past the last original character shown, so a secret that starts in the preview is
 * never cut before the masker has seen it whole.
 */
export function maskPrefix(text: string, max: number): string {
  let window = Math.min(text.length, max + LOOKAHEAD);
  for (;;) {
    const part = text.slice(0, window);
    const { out, consumed } = render(part, findSecrets(part), max);
    const cut = consumed < text.length;
    if (!cut || consumed + LOOKAHEAD <= window || window >= text.length) return cut ? `${out}…` : out;
    window = Math.min(text.length, window * 2);
  }
}

/** Builds the masked text up to `max` characters; `consumed` is how much of the original it covered. */
function render(text: string, spans: SecretSpan[], max: number): { out: string; consumed: number } {
  let out = '';
  let pos = 0;
  for (const s of spans) {
    if (out.length + (s.start - pos) >= max) break;
    out += `${text.slice(pos, s.start)}[REDACTED:${s.kind}]`;
    pos = s.end;
  }
  if (out.length < max) {
    const take = Math.min(text.length - pos, max - out.length);
    out += text.slice(pos, pos + take);
    pos += take;
  }
  return { out, consumed: pos };
}
