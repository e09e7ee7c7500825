import { blobText } from '../core/blob-text.js';
import type { ContentBlock } from '../core/types.js';

/**
 * Masks matched substrings in result content blocks, for rules whose effect is `redact`. Detectors report spans as
 * offsets into the joined content text (`contentText`), which reads every string of a block (text, a resource's
 * text and URI, a block's `_meta`, unknown block types) and the text a base64 payload decodes to; so every string
 * of every block is masked, and a textual `blob` or `data` payload holding a match is decoded, masked and encoded
 * again. Redaction replaces every occurrence of each matched substring, which also covers repeats. The block's
 * `type` and `mimeType` are left as they are.
 */
export function redactContent(blocks: ContentBlock[], secrets: string[], label: string): ContentBlock[] {
  const needles = [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
  const mask = (text: string): string => {
    let out = text;
    for (const n of needles) out = out.split(n).join(`[REDACTED by QuadGuard: ${label}]`);
    return out;
  };
  const walk = (v: unknown, key: string, mimeType: string | undefined, depth: number): unknown => {
    if (typeof v === 'string') {
      if (key === 'type' || key === 'mimeType') return v;
      if (key === 'blob' || key === 'data') {
        const decoded = blobText(v, mimeType);
        if (decoded !== '' && needles.some((n) => decoded.includes(n))) return Buffer.from(mask(decoded), 'utf8').toString('base64');
      }
      const masked = mask(v);
      return masked === v ? v : masked;
    }
    if (v === null || typeof v !== 'object' || depth > 256) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, key, mimeType, depth + 1));
    const o = v as Record<string, unknown>;
    const mime = typeof o.mimeType === 'string' ? o.mimeType : undefined;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [mask(k), walk(x, k, mime, depth + 1)]));
  };
  return blocks.map((block) => walk(block, '', undefined, 0) as ContentBlock);
}
