import { canonicalJson } from '../../../src/core/canonical.js';
import { INTERACTION_CAP } from '../../../src/store/audit-interaction.js';
import { maskPrefix } from '../../../src/store/redact.js';

/**
 * `payloadPreview` as it was before the preview of a shortened payload was read from its JSON's head: the whole
 * shortened payload written as canonical JSON and masked (src/store/audit-interaction.ts at 08eae03).
 */
export function formerPayloadPreview(text: string, value: unknown, max: number): string {
  if (text.length <= INTERACTION_CAP) return maskPrefix(text, max);
  if (typeof value === 'string') return maskPrefix(value.length > INTERACTION_CAP ? maskPrefix(value, INTERACTION_CAP) : value, max);
  let shortened = false;
  const recorded = (s: string): string => {
    if (s.length <= INTERACTION_CAP) return s;
    shortened = true;
    return maskPrefix(s, INTERACTION_CAP);
  };
  const short = mapStrings(value, recorded, { truncated: false }, 0, (k) => k);
  return maskPrefix(shortened ? canonicalJson(short) : text, max);
}

const MAX_DEPTH = 64;

function mapStrings(v: unknown, f: (s: string) => string, flags: { truncated: boolean }, depth: number, key: (s: string) => string): unknown {
  if (typeof v === 'string') return f(v);
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? String(v) : v;
  if (depth >= MAX_DEPTH) {
    flags.truncated = true;
    return null;
  }
  if (Array.isArray(v)) return v.map((x) => mapStrings(x, f, flags, depth + 1, key));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) Object.defineProperty(out, key(k), { value: mapStrings(x, f, flags, depth + 1, key), enumerable: true, writable: true, configurable: true });
  return out;
}
