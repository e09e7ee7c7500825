import type { ContentBlock } from '../core/types.js';

/**
 * Masks matched substrings in result content blocks (text blocks and embedded resource text), for rules whose
 * effect is `redact`. Detectors report spans as offsets into the joined content text; the proxy only has the
 * blocks, so redaction replaces every occurrence of each matched substring, which also covers repeats.
 */
export function redactContent(blocks: ContentBlock[], secrets: string[], label: string): ContentBlock[] {
  const needles = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  const mask = (text: string): string => {
    let out = text;
    for (const n of needles) out = out.split(n).join(`[REDACTED by QuadGuard: ${label}]`);
    return out;
  };
  return blocks.map((block) => {
    const b = block as Record<string, unknown>;
    if (b.type === 'text' && typeof b.text === 'string') return { ...block, text: mask(b.text) };
    if (b.type === 'resource' && b.resource && typeof b.resource === 'object') {
      const r = b.resource as Record<string, unknown>;
      if (typeof r.text === 'string') return { ...block, resource: { ...r, text: mask(r.text) } };
    }
    return block;
  });
}
