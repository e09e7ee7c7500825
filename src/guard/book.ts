import { readFile } from 'node:fs/promises';
import { errorMessage, PolicyError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { CompiledBook } from '../policy/compiled.js';
import type { PolicyDiagnostic } from '../policy/errors.js';
import { loadBook } from '../policy/load.js';
import { verifyBook } from '../policy/sign.js';
import { buildPredicateIndex, type PredicateIndex } from '../retrieval/predicate-index.js';
import type { Embedder } from '../retrieval/types.js';
import { resilientIndex } from './model/embedder.js';

/** Where the vectra index lives: a folder, or a folder per book hash. */
export type IndexFolder = string | ((bookHash: string) => string);

/** Compiled book plus its predicate index: built once and shared by every pipeline on the same book. */
export interface PreparedBook {
  book: CompiledBook;
  index: PredicateIndex;
  warnings: PolicyDiagnostic[];
}

/** How `prepareBook` reads and indexes a book. */
export interface PrepareBookOptions {
  /** PEM file of the ed25519 public key: when given, an unsigned or tampered book is refused. */
  publicKeyPath?: string | undefined;
  /** Dense embedder for top-k (default: the local hashing embedder, exact sparse search). */
  embedder?: Embedder | undefined;
  /** Folder for the persisted vectra index when a dense embedder is used, or a function of the book hash. */
  indexFolder?: IndexFolder | undefined;
  logger?: Logger | undefined;
}

/**
 * Loads (and, with a public key, verifies) a policy book and builds its predicate index. Errors name the book
 * and what is wrong; the proxy refuses to start on any of them.
 */
export async function prepareBook(policy: string, opts: PrepareBookOptions = {}): Promise<PreparedBook> {
  let loaded;
  if (opts.publicKeyPath !== undefined) {
    let pem: string;
    try {
      pem = await readFile(opts.publicKeyPath, 'utf8');
    } catch (err) {
      throw new PolicyError('policy_key_unreadable', `cannot read the policy public key ${opts.publicKeyPath}: ${(err as Error).message}`);
    }
    loaded = await verifyBook(policy, pem);
  } else {
    loaded = await loadBook(policy);
  }
  const book = loaded.compiled;
  const schemas = book.predicates.map((p) => ({ name: p.name, description: p.def.description, keywords: p.def.keywords }));
  const folder = typeof opts.indexFolder === 'function' ? opts.indexFolder(book.hash) : opts.indexFolder;
  let index: PredicateIndex;
  if (opts.embedder === undefined) {
    index = await buildPredicateIndex(schemas, { bookHash: book.hash });
  } else {
    // A dense (model) embedder that fails while building the index must not stop the proxy: fall back to the
    // local embedder with a warning. Per-query failures fall back to the must-check set (resilientIndex).
    const log = opts.logger ?? silentLogger();
    try {
      index = resilientIndex(await buildPredicateIndex(schemas, { embedder: opts.embedder, ...(folder ? { folder } : {}), bookHash: book.hash }), log);
    } catch (err) {
      log.warn({ mod: 'guard', embedder: opts.embedder.id, err: errorMessage(err) }, 'building the predicate index with the embedding model failed; using the local embedder');
      index = await buildPredicateIndex(schemas, { bookHash: book.hash });
    }
  }
  return { book, index, warnings: loaded.warnings };
}
