import { readFile } from 'node:fs/promises';
import { errorMessage, PolicyError } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { CompiledBook } from '../policy/compiled.js';
import { formatDiagnostic, type PolicyDiagnostic } from '../policy/errors.js';
import { loadBook } from '../policy/load.js';
import { verifyBook } from '../policy/sign.js';
import type { Embedder } from '../retrieval/types.js';
import { buildPredicateIndex, type PredicateIndex } from '../retrieval/predicate-index.js';
import type { Store } from '../store/db.js';
import type { GuardStore } from '../store/engine.js';
import { openGuardStore } from '../store/open.js';
import { toGuardStore } from '../store/sqlite-engine.js';
import { resilientIndex } from './model.js';
import { GuardPipeline, type PipelineDeps } from './pipeline.js';

/** What `loadGuard` needs: where the book and the store are, and the optional model seams. */
export interface LoadGuardOptions {
  /** Policy book directory or file. */
  policy: string;
  /** SQLite file or `postgres://` URL (or an open store, e.g. `:memory:` for evaluation). */
  store: string | GuardStore | Store;
  logger?: Logger;
  /** PEM file of the ed25519 public key: when given, an unsigned or tampered book is refused. */
  publicKeyPath?: string;
  options?: PipelineDeps['options'];
  semantic?: PipelineDeps['semantic'];
  reviewer?: PipelineDeps['reviewer'];
  /** The model hooks (semantic predicates, state expansion, review, threat complement); see model.ts. */
  model?: PipelineDeps['model'];
  /** Dense embedder for top-k (default: the local hashing embedder, exact sparse search). */
  embedder?: Embedder;
  /** Folder for the persisted vectra index when a dense embedder is used, or a function of the book hash. */
  indexFolder?: IndexFolder;
}

/** Where the vectra index lives: a folder, or a folder per book hash. */
export type IndexFolder = string | ((bookHash: string) => string);

export interface LoadedGuard {
  pipeline: GuardPipeline;
  book: CompiledBook;
  warnings: PolicyDiagnostic[];
  /** Closes the store if `loadGuard` opened it. */
  close(): Promise<void>;
}

/** Compiled book plus its predicate index: built once and shared by every pipeline on the same book. */
export interface PreparedBook {
  book: CompiledBook;
  index: PredicateIndex;
  warnings: PolicyDiagnostic[];
}

/**
 * Loads (and, with a public key, verifies) a policy book and builds its predicate index. Errors name the book
 * and what is wrong; the proxy refuses to start on any of them.
 */
export async function prepareBook(
  policy: string,
  opts: { publicKeyPath?: string; embedder?: Embedder; indexFolder?: IndexFolder; logger?: Logger } = {},
): Promise<PreparedBook> {
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

/**
 * Builds the four-part guard for a policy book and a store.
 *
 * @example
 * const { pipeline, close } = await loadGuard({ policy: 'policies/default', store: '.quadguard/state.db' });
 * const decision = await pipeline.check(interaction);
 */
export async function loadGuard(opts: LoadGuardOptions): Promise<LoadedGuard> {
  const logger = opts.logger ?? silentLogger();
  const prepared = await prepareBook(opts.policy, opts);
  for (const w of prepared.warnings) logger.warn({ mod: 'policy' }, formatDiagnostic(w));
  const ownsStore = typeof opts.store === 'string';
  const store = typeof opts.store === 'string' ? await openGuardStore(opts.store, logger) : toGuardStore(opts.store);
  const pipeline = new GuardPipeline({
    book: prepared.book,
    index: prepared.index,
    store,
    logger,
    ...(opts.options ? { options: opts.options } : {}),
    ...(opts.semantic ? { semantic: opts.semantic } : {}),
    ...(opts.reviewer ? { reviewer: opts.reviewer } : {}),
    ...(opts.model ? { model: opts.model } : {}),
  });
  logger.info(
    { mod: 'guard', policy: prepared.book.book.name, version: prepared.book.book.version, hash: prepared.book.hash.slice(0, 12), predicates: prepared.book.predicates.length, rules: prepared.book.rules.length },
    'policy loaded',
  );
  return {
    pipeline,
    book: prepared.book,
    warnings: prepared.warnings,
    close: async () => {
      if (ownsStore) await store.close();
    },
  };
}
