import { createHash } from 'node:crypto';
import { PolicyBookSchema, type PolicyBook, type PolicyBookInput } from './schema.js';

/**
 * The canonical form of a book: JSON with sorted object keys and no whitespace, after schema defaults are
 * applied. Formatting, key order, comments and YAML-vs-JSON do not change it; any change of meaning does. This is
 * what `hash` and signatures cover.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) s += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${s}]`;
  }
  const o = value as Record<string, unknown>;
  let s = '{';
  let first = true;
  // Default sort compares UTF-16 code units: stable across platforms and locales.
  for (const k of Object.keys(o).sort()) {
    const v = o[k];
    if (v === undefined) continue;
    s += `${first ? '' : ','}${JSON.stringify(k)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${s}}`;
}

/** Canonical text of a book (defaults applied; throws zod's error on an invalid book). */
export function canonicalBook(book: PolicyBook | PolicyBookInput): string {
  return canonicalJson(PolicyBookSchema.parse(book));
}

/** sha256 hex of the canonical form. */
export function bookHash(book: PolicyBook | PolicyBookInput): string {
  return createHash('sha256').update(canonicalBook(book), 'utf8').digest('hex');
}
