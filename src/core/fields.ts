import type { ContentBlock, Interaction } from './types.js';

/**
 * Field selection shared by every detector: which text of an interaction a detector inspects.
 *
 * Selectors:
 * - `any` (default): every inspectable text of the interaction (all below that are present)
 * - `arguments`: every string leaf of the tool-call arguments (keys too, as `key: value` lines)
 * - `arguments.<path>`: one argument by dotted path (`arguments.options.to`, `arguments.files.0`)
 * - `content`: the message text, or the text of result content blocks (text, embedded resource text)
 * - `tool`: `<server>__<tool>`; `server`, `uri`, `sender`, `recipient`: those fields as they are
 */
export type FieldSelector = string;

/** One piece of text a detector inspects, labelled with where it came from (for spans and evidence). */
export interface FieldText {
  field: string;
  text: string;
}

const MAX_DEPTH = 32;

/** Text of MCP content blocks: text blocks, embedded resource text, resource links' URIs. Binary data is skipped. */
export function contentText(content: Interaction['content']): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.map(blockText).filter((t) => t.length > 0).join('\n');
}

function blockText(block: ContentBlock): string {
  const b = block as Record<string, unknown>;
  if (b.type === 'text' && typeof b.text === 'string') return b.text;
  if (b.type === 'resource' && b.resource && typeof b.resource === 'object') {
    const r = b.resource as Record<string, unknown>;
    return typeof r.text === 'string' ? r.text : '';
  }
  if (b.type === 'resource_link' && typeof b.uri === 'string') return b.uri;
  return '';
}

/** Every string leaf under `value`, as `path: text` pairs (depth-bounded, so hostile nesting cannot recurse forever). */
export function stringLeaves(value: unknown, prefix = '', depth = 0, out: FieldText[] = []): FieldText[] {
  if (depth > MAX_DEPTH) return out;
  if (typeof value === 'string') out.push({ field: prefix, text: value });
  else if (typeof value === 'number' || typeof value === 'boolean') out.push({ field: prefix, text: String(value) });
  else if (Array.isArray(value)) value.forEach((v, i) => stringLeaves(v, `${prefix}.${i}`, depth + 1, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) stringLeaves(v, `${prefix}.${k}`, depth + 1, out);
  }
  return out;
}

/** Value at a dotted path (`a.b.0.c`) inside an object, or undefined. */
export function atPath(value: unknown, path: string): unknown {
  let cur: unknown = value;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** `<server>__<tool>` as the policy's tool globs see it (the server's own names, not the exposed ones). */
export function qualifiedTool(i: Interaction): string | undefined {
  if (i.tool === undefined) return undefined;
  return i.server === undefined ? i.tool : `${i.server}__${i.tool}`;
}

/**
 * The texts a selector picks from an interaction. An empty array means the field is absent; detectors then
 * answer `unknown` when the field was required, or `false` when absence means "nothing to see".
 */
export function selectFields(i: Interaction, selector: FieldSelector = 'any'): FieldText[] {
  if (selector === 'any') {
    return [
      ...selectFields(i, 'arguments'),
      ...selectFields(i, 'content'),
      ...selectFields(i, 'uri'),
    ];
  }
  if (selector === 'arguments') {
    if (i.arguments === undefined) return [];
    return stringLeaves(i.arguments, 'arguments');
  }
  if (selector.startsWith('arguments.')) {
    if (i.arguments === undefined) return [];
    const v = atPath(i.arguments, selector.slice('arguments.'.length));
    return v === undefined ? [] : stringLeaves(v, selector);
  }
  if (selector === 'content') {
    const text = contentText(i.content);
    return i.content === undefined ? [] : [{ field: 'content', text }];
  }
  if (selector === 'tool') {
    const t = qualifiedTool(i);
    return t === undefined ? [] : [{ field: 'tool', text: t }];
  }
  if (selector === 'server' || selector === 'uri' || selector === 'sender' || selector === 'recipient') {
    const v = i[selector];
    return v === undefined ? [] : [{ field: selector, text: v }];
  }
  return [];
}

/** Selectors a detector spec may name (checked when the book compiles). */
export function isValidSelector(selector: string): boolean {
  return (
    ['any', 'arguments', 'content', 'tool', 'server', 'uri', 'sender', 'recipient'].includes(selector) ||
    /^arguments(\.[A-Za-z0-9_$-]+)+$/.test(selector)
  );
}
