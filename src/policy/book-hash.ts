import { canonicalJson, sha256Hex } from '../core/canonical.js';
import { PolicyBookSchema, type PolicyBook, type PolicyBookInput } from './schema.js';

/**
 * Canonical text of a book: the core canonical JSON after schema defaults are applied, so formatting, key order,
 * comments and YAML-vs-JSON do not change it; any change of meaning does. This is what `hash` and signatures cover.
 * Throws zod's error on an invalid book.
 */
export function canonicalBook(book: PolicyBook | PolicyBookInput): string {
  return canonicalJson(PolicyBookSchema.parse(book));
}

/** sha256 hex of the canonical form. */
export function bookHash(book: PolicyBook | PolicyBookInput): string {
  return sha256Hex(canonicalBook(book));
}
