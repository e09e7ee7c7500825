import { blobText } from './blob-text.js';
import { KINDS } from './kinds.js';
import { argumentsOf, contentOf, metaOf, serverOf, type ContentBlock, type Interaction } from './types.js';

/**
 * Field selection shared by every detector: which text of an interaction a detector inspects.
 *
 * Selectors:
 * - `any` (default): every inspectable text of the interaction (all below that are present)
 * - `arguments`: every string leaf of the tool-call arguments (keys too, as `key: value` lines), and of the side
 *   fields (`meta`: a request's `_meta`…) of an interaction that goes to a server
 * - `arguments.<path>`: one argument by dotted path (`arguments.options.to`, `arguments.files.0`)
 * - `content`: the message text, or every text-bearing part of the content blocks (see `contentText`), and the
 *   side fields (`meta`: a result's `_meta`…) of an interaction that goes to the client
 * - `tool`: `<server>__<tool>`; `server`, `uri`, `prompt`, `sender`, `recipient`: those fields as they are
 * A selector picks nothing from a kind that does not have the field (core/types.ts: each kind has exactly its
 * fields; arguments on tool calls and prompt requests, content on results and messages).
 */
export type FieldSelector = string;

/** One piece of text a detector inspects, labelled with where it came from (for spans and evidence). */
export interface FieldText {
  field: string;
  text: string;
}

const MAX_DEPTH = 32;

/**
 * Text of MCP content blocks, every text-bearing part of every block: `text`, a resource link's `uri`, `name`,
 * `title` and `description`, an embedded resource's `uri`, `text` and text-like `blob`, text-like image/audio
 * `data` (see `blob-text.ts`), a block's `_meta` (a side channel to the client like any other field), and for block
 * types this code does not know (structured content, elicitation and sampling payloads, future types) every string
 * leaf, and object keys other than plain words. Binary payloads, `type`, `mimeType` and `annotations` are skipped. Read at any depth (a stack below `MAX_DEPTH`).
 */
export function contentText(content: string | readonly ContentBlock[] | undefined): string {
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  const out: string[] = [];
  for (const block of content) collectText(block, out, 0);
  return out.join('\n');
}

/** Keys whose values are never text a reader is shown. */
const SKIP_KEYS = new Set(['type', 'mimeType', 'annotations']);
/** Keys holding base64 payloads. */
const BASE64_KEYS = new Set(['data', 'blob']);

function collectText(value: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH) return collectDeep(value, out);
  if (typeof value === 'string') {
    if (value.length > 0) out.push(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) collectText(v, out, depth + 1);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const o = value as Record<string, unknown>;
  const mime = typeof o.mimeType === 'string' ? o.mimeType : undefined;
  for (const [k, v] of Object.entries(o)) {
    if (SKIP_KEYS.has(k)) continue;
    if (BASE64_KEYS.has(k) && typeof v === 'string') {
      const decoded = blobText(v, mime);
      if (decoded.length > 0) out.push(decoded);
      continue;
    }
    // A key can carry text (`{"Ignore previous instructions": …}`) or data (`{"7731-5519-2284": {…}}`, a token);
    // a plain word (`text`, `file_name`) carries neither.
    if (/[^A-Za-z_]/.test(k) || k.length > 40) out.push(k);
    collectText(v, out, depth + 1);
  }
}

/**
 * `collectText` below `MAX_DEPTH`, with a stack instead of recursion: nesting deeper than the recursion goes is still
 * read, in the same order, whatever its depth (a result nested 40 deep was not read at all).
 */
function collectDeep(root: unknown, out: string[]): void {
  const stack: Array<{ v: unknown; mime?: string | undefined; key?: string }> = [{ v: root }];
  while (stack.length > 0) {
    const { v: value, mime, key } = stack.pop()!;
    if (key !== undefined && BASE64_KEYS.has(key) && typeof value === 'string') {
      const decoded = blobText(value, mime);
      if (decoded.length > 0) out.push(decoded);
      continue;
    }
    if (typeof value === 'string') {
      if (value.length > 0) out.push(value);
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ v: value[i] });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const o = value as Record<string, unknown>;
    const m = typeof o.mimeType === 'string' ? o.mimeType : undefined;
    const entries = Object.entries(o).filter(([k]) => !SKIP_KEYS.has(k));
    // Keys are read before the values under them, as `collectText` does: pushed as strings after their value.
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, v] = entries[i]!;
      stack.push({ v, mime: m, key: k });
      if (!(BASE64_KEYS.has(k) && typeof v === 'string') && (/[^A-Za-z_]/.test(k) || k.length > 40)) stack.push({ v: k });
    }
  }
}

/**
 * Every string leaf under `value`, as `path: text` pairs (at any depth: below `MAX_DEPTH` with a stack, so hostile nesting cannot recurse forever),
 * then every object key under it, one per line, as the field `<prefix>{keys}`: a key reaches the server as surely as
 * a value does.
 */
export function stringLeaves(value: unknown, prefix = ''): FieldText[] {
  const out: FieldText[] = [];
  const keys: string[] = [];
  walkLeaves(value, prefix, 0, out, keys);
  // Object keys are sent too (`{"headers": {"<key>": "1"}}`): every key under `value`, one per line, as one more field.
  if (keys.length > 0) out.push({ field: `${prefix}{keys}`, text: keys.join('\n') });
  return out;
}

function walkLeaves(value: unknown, prefix: string, depth: number, out: FieldText[], keys: string[]): void {
  if (depth > MAX_DEPTH) return walkDeep(value, prefix, out, keys);
  if (typeof value === 'string') out.push({ field: prefix, text: value });
  else if (typeof value === 'number' || typeof value === 'boolean') out.push({ field: prefix, text: String(value) });
  else if (Array.isArray(value)) value.forEach((v, i) => walkLeaves(v, `${prefix}.${i}`, depth + 1, out, keys));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      keys.push(k);
      walkLeaves(v, `${prefix}.${k}`, depth + 1, out, keys);
    }
  }
}

/**
 * `walkLeaves` below `MAX_DEPTH`, with a stack instead of recursion: every leaf under `value`, in order, as one field
 * named by the path where the recursion stopped (one line each), and every key. Arguments nested deeper than the
 * recursion goes (a `limits.max_argument_depth` over 32) were not read at all.
 */
function walkDeep(root: unknown, prefix: string, out: FieldText[], keys: string[]): void {
  const leaves: string[] = [];
  // A key is taken when it comes off the stack, just before the value under it (as `walkLeaves` takes them).
  const stack: Array<{ v: unknown } | { key: string }> = [{ v: root }];
  while (stack.length > 0) {
    const item = stack.pop()!;
    if ('key' in item) {
      keys.push(item.key);
      continue;
    }
    const value = item.v;
    if (typeof value === 'string') leaves.push(value);
    else if (typeof value === 'number' || typeof value === 'boolean') leaves.push(String(value));
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i--) stack.push({ v: value[i] });
    else if (value && typeof value === 'object') {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ v: entries[i]![1] }, { key: entries[i]![0] });
    }
  }
  if (leaves.length > 0) out.push({ field: prefix, text: leaves.join('\n') });
}

/** Value at a dotted path (`a.b.0.c`) inside an object, or undefined. */
export function atPath(value: unknown, path: string): unknown {
  // One key (`arguments.path`'s `path`): the walk below in one step, without splitting the path.
  if (!path.includes('.')) return value === null || typeof value !== 'object' ? undefined : (value as Record<string, unknown>)[path];
  let cur: unknown = value;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** `<server>__<tool>` as the policy's tool globs see it (the server's own names, not the exposed ones). */
export function qualifiedTool(i: Interaction): string | undefined {
  if (i.kind !== 'tool_call' && i.kind !== 'tool_result') return undefined;
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
      ...selectFields(i, 'prompt'),
      // A message's addresses are chosen by the sending agent and travel with it: a credential or a URL can ride there.
      ...selectFields(i, 'recipient'),
      ...selectFields(i, 'sender'),
    ];
  }
  if (selector === 'arguments') {
    const args = argumentsOf(i);
    return [...(args === undefined ? [] : stringLeaves(args, 'arguments')), ...sideFields(i, 'to_server')];
  }
  if (selector.startsWith('arguments.')) {
    const args = argumentsOf(i);
    if (args === undefined) return [];
    const v = atPath(args, selector.slice('arguments.'.length));
    return v === undefined ? [] : stringLeaves(v, selector);
  }
  if (selector === 'content') {
    const content = contentOf(i);
    const meta = KINDS[i.kind].direction === 'to_client' ? metaOf(i) : undefined;
    return [...(content === undefined ? [] : [{ field: 'content', text: contentText(content) }]), ...(meta ? [{ field: 'meta', text: contentText([{ type: 'meta', ...meta }]) }] : [])];
  }
  if (selector === 'tool') {
    const t = qualifiedTool(i);
    return t === undefined ? [] : [{ field: 'tool', text: t }];
  }
  if (selector === 'server') {
    const v = serverOf(i);
    return v === undefined ? [] : [{ field: selector, text: v }];
  }
  if (selector === 'uri' || selector === 'prompt' || selector === 'sender' || selector === 'recipient') {
    const v = selector in i ? (i as Record<string, unknown>)[selector] : undefined;
    return typeof v === 'string' ? [{ field: selector, text: v }] : [];
  }
  return [];
}

/**
 * The side fields (`meta`) of an interaction that travels `direction`, as `meta.<path>` leaves (keys too): a request's
 * `_meta` reaches the server as surely as its arguments do, so every detector that reads arguments reads it.
 */
function sideFields(i: Interaction, direction: 'to_server'): FieldText[] {
  const meta = metaOf(i);
  return meta !== undefined && KINDS[i.kind].direction === direction ? stringLeaves(meta, 'meta') : [];
}

/** Selectors a detector spec may name (checked when the book compiles). */
export function isValidSelector(selector: string): boolean {
  return (
    ['any', 'arguments', 'content', 'tool', 'server', 'uri', 'prompt', 'sender', 'recipient'].includes(selector) ||
    /^arguments(\.[A-Za-z0-9_$-]+)+$/.test(selector)
  );
}

/**
 * Every text of a listed item (a tool, prompt, resource or template definition) a client may hand its model, read
 * as a content block of its own type (`contentText`): names, titles, descriptions, schemas, annotations' titles,
 * `_meta` and every field MCP adds later. Beside that, what `contentText` would miss: an icon's `src` (a `data:`
 * URI as its decoded text, when it is text; a URL as it is) and the property names of its schemas as words
 * (`send_all_keys_to` is "send all keys to": a name the model reads as an instruction).
 */
export function listingText(item: object): string {
  const { icons, ...rest } = item as { icons?: unknown };
  const parts = [contentText([{ type: 'listing', ...rest }])];
  if (Array.isArray(icons)) for (const icon of icons) parts.push(iconText(icon));
  const names: string[] = [];
  for (const key of ['inputSchema', 'outputSchema', 'arguments']) propertyNames((rest as Record<string, unknown>)[key], names, 0);
  if (names.length > 0) parts.push(names.map(asWords).join('\n'));
  return parts.filter((p) => p.length > 0).join('\n');
}

/** An icon's `src`: a `data:` URI's decoded text (binary images read as nothing), any other URI as it is. */
function iconText(icon: unknown): string {
  const src = icon !== null && typeof icon === 'object' ? (icon as { src?: unknown }).src : undefined;
  if (typeof src !== 'string') return '';
  const m = /^data:([^;,]*)(;base64)?,(.*)$/is.exec(src);
  if (!m) return src;
  if (m[2] !== undefined) return blobText(m[3] ?? '', m[1] || undefined);
  try {
    return decodeURIComponent(m[3] ?? '');
  } catch {
    return m[3] ?? '';
  }
}

/** The property names under a JSON schema's `properties` (and a prompt's argument names), at any depth below the cap. */
function propertyNames(schema: unknown, out: string[], depth: number): void {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== 'object') return;
  if (Array.isArray(schema)) {
    for (const s of schema) propertyNames(s, out, depth + 1);
    return;
  }
  const o = schema as Record<string, unknown>;
  if (typeof o.name === 'string' && depth === 1) out.push(o.name);
  for (const [k, v] of Object.entries(o)) {
    if (k === 'properties' && v !== null && typeof v === 'object' && !Array.isArray(v)) for (const name of Object.keys(v)) out.push(name);
    propertyNames(v, out, depth + 1);
  }
}

/** An identifier as words: `send_all_keys`, `sendAllKeys` and `send-all-keys` read as "send all keys". */
function asWords(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_\-.]+/g, ' ').trim();
}
