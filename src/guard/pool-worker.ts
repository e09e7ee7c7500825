import '../detectors/index.js';
import type { Interaction } from '../core/types.js';
import { rateCounts } from '../detectors/rate.js';
import type { CompiledBook } from '../policy/compiled.js';
import { compileBook } from '../policy/compile.js';
import type { PredicateValue } from '../policy/evaluate.js';
import type { PolicyBook } from '../policy/schema.js';
import type { AuditEntry } from '../store/audit-schema.js';
import { auditFields, payloadColumns, type BuiltAuditRow, type PayloadColumns } from '../store/audit-row.js';
import { createReadHashers, readDigest, readDigestKey, readHashes, type ReadHashers, type ReadHashOptions } from './read-hashes.js';
import { SharedTextCache, type SharedLeaf } from './shared-texts.js';
import { ActionIndex } from './provenance-actions.js';
import { evaluateScanningFirst } from './scan-first.js';
import { readOutgoing, type OutgoingJob, type OutgoingReading } from './dataflow.js';
import { provenanceHasher, untrustedHashes, type UntrustedHashes, type UntrustedHashesJob } from './provenance.js';

/**
 * What a worker thread of the pool (text-pool.ts) runs: the same functions the event loop runs, on what the message
 * carries, so the answer is the one the loop would give. Loaded by the pool's worker script from `dist/src/guard/`,
 * from the CLI bundle's `pool-worker.js` entry (scripts/bundle.ts), or from the sources through tsx.
 */

/** A book as sent to a worker: once per worker; later jobs name it by `id`. */
export interface BookPayload {
  id: string;
  book: PolicyBook;
  dir?: string;
  hash: string;
}

/** The detector pass of an interaction: the named predicates evaluated, as the tracker does on the loop. */
export interface EvaluateJob {
  kind: 'evaluate';
  book: string;
  names: string[];
  interaction: Interaction;
  /** The rate counts the guard found for it (`rateCounts` sits beside the interaction, not on it). */
  rates?: ReadonlyMap<string, number>;
}

/** The hashes a private read leaves (read-hashes.ts). */
export interface ReadHashesJob {
  kind: 'read_hashes';
  text: string;
  key: Uint8Array;
  options: ReadHashOptions;
}

/** The keyed digest naming a private read's content (read-hashes.ts `readDigest`). */
export interface ReadDigestJob {
  kind: 'read_digest';
  text: string;
  key: Uint8Array;
  options: ReadHashOptions;
}

/** The columns of an audit row (`auditFields`): the payload's serialisation, digest and masked preview, the masked record. */
export interface AuditRowJob {
  kind: 'audit_row';
  entry: AuditEntry;
}

/** What an audit row takes from a payload and its interaction alone (`payloadColumns`), computed before the decision. */
export interface AuditPayloadJob {
  kind: 'audit_payload';
  payload: unknown;
  interaction: Interaction;
}

/** The hashes an untrusted text leaves for provenance (provenance.ts, `untrustedHashes`). */
export interface ProvenanceJob extends UntrustedHashesJob {
  kind: 'provenance';
  text: string;
  key: Uint8Array;
}

/** Data flow's reading of an outgoing send (dataflow.ts, `readOutgoing`). */
export interface OutgoingPoolJob {
  kind: 'outgoing';
  job: OutgoingJob;
  key: Uint8Array;
  options: ReadHashOptions;
}

/** The ids of the books a worker holds (tests, diagnostics). */
export interface BooksJob {
  kind: 'books';
}

/** `shared`: the job's long strings, taken out and sent as shared bytes (shared-texts.ts); put back before it runs. */
export type PoolJob = (EvaluateJob | ReadHashesJob | ReadDigestJob | AuditRowJob | AuditPayloadJob | ProvenanceJob | OutgoingPoolJob | BooksJob) & { shared?: SharedLeaf[] };
/** A book to compile and keep under its id, or one to forget (no longer current: the pool keeps at most a few). */
export type PoolMessage = PoolJob | { kind: 'book'; book: BookPayload } | { kind: 'drop'; id: string };
export type PoolAnswer = Array<[string, PredicateValue]> | string[] | string | BuiltAuditRow | PayloadColumns | UntrustedHashes | OutgoingReading | null;

/** The error a worker answers when it cannot compile a book the main thread compiled (e.g. a detector it lacks). */
export const BOOK_UNAVAILABLE = 'pool_book_unavailable';

/** Hashers of flow keys a worker keeps (a store's flow key rarely changes; past this, all are forgotten). */
const MAX_HASHERS = 4;
/** Action indexes of tool catalogues a worker keeps (the current catalogue of a stage or two). */
const MAX_INDEXES = 2;

/**
 * The handler of one worker: keeps the books it was sent until told to drop one (text-pool.ts decides which), and
 * the hashers of the flow keys it saw, and the long texts of the last jobs, decoded once for the jobs that share them.
 */
export function poolHandler(): (m: PoolMessage) => PoolAnswer {
  const books = new Map<string, CompiledBook | string>();
  const hashers = new Map<string, ReadHashers>();
  const texts = new SharedTextCache();
  const indexes = new Map<string, ActionIndex>();
  const provenanceHashers = new Map<string, (s: string) => string>();
  const hashersOf = (key: Uint8Array, options: ReadHashOptions): ReadHashers => {
    const id = `${Buffer.from(key).toString('base64')}/${options.k}/${options.window}`;
    let h = hashers.get(id);
    if (!h) {
      if (hashers.size >= MAX_HASHERS) hashers.clear();
      hashers.set(id, (h = createReadHashers(Buffer.from(key), options)));
    }
    return h;
  };
  return (m) => {
    if ('shared' in m && m.shared !== undefined) {
      texts.restore(m, m.shared);
      delete m.shared;
    }
    switch (m.kind) {
      case 'book': {
        try {
          const { compiled } = compileBook(m.book.book, m.book.dir !== undefined ? { bookDir: m.book.dir } : {});
          books.set(m.book.id, compiled.hash === m.book.hash ? compiled : `the book compiled to another hash in the worker (${compiled.hash.slice(0, 12)})`);
        } catch (err) {
          books.set(m.book.id, (err as Error).message.slice(0, 300));
        }
        return null;
      }
      case 'drop':
        books.delete(m.id);
        return null;
      case 'books':
        return [...books.keys()];
      case 'audit_row':
        return auditFields(m.entry);
      case 'audit_payload':
        return payloadColumns(m.payload, m.interaction);
      case 'evaluate': {
        const book = books.get(m.book);
        if (book === undefined || typeof book === 'string') throw Object.assign(new Error(`${BOOK_UNAVAILABLE}: ${book ?? 'the book was not sent'}`), { code: BOOK_UNAVAILABLE });
        if (m.rates) rateCounts.set(m.interaction, m.rates);
        return [...evaluateScanningFirst(m.names.map((name) => book.byName.get(name)!), m.interaction)];
      }
      case 'provenance': {
        const keyId = Buffer.from(m.key).toString('base64');
        let h = provenanceHashers.get(keyId);
        if (!h) {
          if (provenanceHashers.size >= MAX_HASHERS) provenanceHashers.clear();
          provenanceHashers.set(keyId, (h = provenanceHasher(Buffer.from(m.key))));
        }
        let index: ActionIndex | undefined;
        if (m.catalogue) {
          index = indexes.get(m.catalogue.id);
          if (!index) {
            if (indexes.size >= MAX_INDEXES) indexes.delete(indexes.keys().next().value!);
            indexes.set(m.catalogue.id, (index = new ActionIndex(m.catalogue.tools, { similarity: m.catalogue.similarity })));
          }
        }
        return untrustedHashes(m.text, m.who, index, h, m.limit);
      }
      case 'read_hashes':
        return readHashes(m.text, hashersOf(m.key, m.options), m.options.max_per_read);
      case 'read_digest':
        return readDigest(m.text, readDigestKey(Buffer.from(m.key), m.options));
      case 'outgoing': {
        const h = hashersOf(m.key, m.options);
        return readOutgoing(m.job, h.fp, h.valueHash);
      }
    }
  };
}
