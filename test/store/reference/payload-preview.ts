import { canonicalJson } from '../../../src/core/canonical.js';
import { INTERACTION_CAP, mapStrings } from '../../../src/store/audit-interaction.js';
import { maskPrefix } from '../../../src/store/redact.js';

/**
 * `payloadPreview` as it was before the preview of a shortened payload was read from its JSON's head: the whole
 * shortened payload written as canonical JSON and masked (src/store/audit-interaction.ts at 08eae03; its `mapStrings`,
 * unchanged since, is the module's own).
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
