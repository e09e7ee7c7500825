import { findSecrets, type SecretSpan } from '../../../src/store/redact.js';

/** `maskPrefix` as it was before its window could grow past a token run at once: doubling only, no kept spans. */
export function maskPrefixDoubling(text: string, max: number): string {
  let window = Math.min(text.length, max + 512);
  for (;;) {
    const part = text.slice(0, window);
    const { out, consumed } = render(part, findSecrets(part), max);
    const cut = consumed < text.length;
    if (!cut || consumed + 512 <= window || window >= text.length) return cut ? `${out}…` : out;
    window = Math.min(text.length, window * 2);
  }
}

/** The masked text up to `max` characters and how much of the original it covered (redact.ts's, unchanged). */
export function render(text: string, spans: SecretSpan[], max: number): { out: string; consumed: number } {
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
