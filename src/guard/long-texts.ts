import { KINDS, type InteractionKind } from '../core/kinds.js';
import type { Logger } from '../core/log.js';
import type { Interaction } from '../core/types.js';
import { rateCounts } from '../detectors/rate.js';
import type { CompiledBook, CompiledPredicate } from '../policy/compiled.js';
import type { PredicateValue } from '../policy/evaluate.js';
import { auditPayloadOf, type AuditEntry } from '../store/audit-schema.js';
import { auditFields, useBuiltRow, type BuiltAuditRow, type PayloadColumns } from '../store/audit-row.js';
import { BOOK_UNAVAILABLE, type BookPayload, type PoolAnswer, type PoolJob } from './pool-worker.js';
import { SharedTexts } from './shared-texts.js';
import type { ReadHashOptions } from './read-hashes.js';
import type { UntrustedHashes, UntrustedHashesJob } from './provenance.js';
import type { OutgoingJob, OutgoingReading } from './dataflow.js';
import { PoolWorkerError, type TextPool } from './text-pool.js';
import { evaluateHere, type EvaluatePredicates } from './tracker.js';

/**
 * Long text work goes to the pool (text-pool.ts): the one place that decides what is long and sends it there, for
 * the work that costs in proportion to a text's length — the detector pass of the tracker over an interaction, the
 * hashes a private read leaves and the reading of a long send (data flow), the provenance hashes of an untrusted
 * text (its steering values and the tools it asks for), and the audit row of a long interaction (its payload
 * serialised and hashed, its preview and record masked), the keyed digest naming a private read's content. Short work stays on the loop: the round trip to a worker would cost more than it frees. What is
 * left on the loop for a long text is its encoding once into memory the workers share (shared-texts.ts: a slice per
 * turn of the event loop; no job copies it), and a long private read's fingerprint inserts (store/flow.ts: a
 * statement per turn). What depends on the text alone, not on the decision (the audit row's payload columns, a
 * private read's digest and hashes), starts in the pool's spare thread beside the detector pass (`auditAhead`,
 * `readAhead`), so the answer waits for the detector pass, not for them after it.
 */

/** Long texts shared with the pool's workers lately (one encoding for every job and reader of a text). */
const sharedTexts = new SharedTexts();

/**
 * `job` run in the pool with its long strings sent once, as shared bytes (shared-texts.ts), instead of a structured
 * clone of each per job.
 */
async function runShared(pool: TextPool, job: PoolJob, book?: BookPayload, admitted = false): Promise<PoolAnswer | undefined> {
  const { job: light, shared } = await sharedTexts.share(job);
  return pool.run(shared.length > 0 ? { ...light, shared } : light, book, admitted);
}

/** Warned at most this often (ms) that long texts are read on the event loop. */
const IN_PLACE_WARN_MS = 60_000;

/** Whether the string values of `value` (every field, at any depth) hold at least `min` characters in all. */
export function hasLongText(value: unknown, min: number): boolean {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      total += v.length;
      if (total >= min) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const x of Object.values(v)) stack.push(x);
    }
  }
  return false;
}

export interface LongTextReader {
  /** The tracker's detector pass: in the pool when the interaction's texts are long (throws `PoolBusyError` when full). */
  evaluate: EvaluatePredicates;
  /**
   * Starts a long private read's digest and hashes in the pool's spare thread, beside the check's detector pass
   * (its answer does not depend on the decision). `readDigestOf` and `readHashesOf` of that text then answer them;
   * nothing is stored before the decision. A read the spare thread cannot take (none, its queue full, a failure)
   * is read as before, after the decision.
   */
  readAhead(text: string, key: () => Promise<Buffer>, options: ReadHashOptions): void;
  /**
   * Starts what a long interaction's audit row takes from its payload and interaction alone (`payloadColumns`: the
   * payload's digest, size and masked preview, the masked record) in the spare thread, beside the detector pass.
   * `auditEntry` of an entry with that very payload and interaction then uses them.
   */
  auditAhead(i: Interaction): void;
  /** A long private read's hashes from the pool, or undefined to compute them on the loop. */
  readHashesOf(text: string, key: Buffer, options: ReadHashOptions): Promise<string[] | undefined>;
  /** A long private read's keyed digest from the pool, or undefined to compute it on the loop. */
  readDigestOf(text: string, key: Buffer, options: ReadHashOptions): Promise<string | undefined>;
  /**
   * Data flow's reading of a long send from the pool, or undefined to read it on the loop. Held to the queue's bound:
   * a send that finds the pool full is refused (`PoolBusyError`; the check fails closed), never read on the loop.
   */
  outgoingOf(job: OutgoingJob, key: Buffer, options: ReadHashOptions): Promise<OutgoingReading | undefined>;
  /** A long untrusted text's provenance hashes from the pool, or undefined to compute them on the loop. */
  untrustedHashesOf(text: string, key: Buffer, job: UntrustedHashesJob): Promise<UntrustedHashes | undefined>;
  /**
   * The audit entry of a long interaction, stamped with its time, with its row's columns built in the pool
   * (`useBuiltRow`: the store's `auditFields` then answers them); a short one as it is (the store builds its row).
   * A job of a check already let in: never refused as busy. When the pool cannot build it (none, no worker can
   * start, the worker stopped), the store builds the row on the loop: the row is the record of a decision already
   * made, so it is written whatever the pool does.
   */
  auditEntry(entry: AuditEntry): Promise<AuditEntry>;
}


/**
 * The reader of long texts for one book: an interaction is long from `minChars` characters, a send (what data flow
 * reads for leaks) from `minSendChars`. Without a pool (`guard.pool.workers: 0`), or while none of its workers can
 * start, everything is read on the loop, with a warning at most once a minute.
 */
export function longTextReader(book: CompiledBook, pool: TextPool | undefined, minChars: number, log: Logger, spare?: TextPool, minSendChars = minChars): LongTextReader {
  /** The threshold of an interaction of `kind`: a send's (what data flow reads for leaks) or any other's. */
  const minFor = (kind: string): number => (Object.hasOwn(KINDS, kind) && KINDS[kind as InteractionKind].sink !== 'none' ? minSendChars : minChars);
  const payload: BookPayload = { id: `${book.hash}:${book.dir ?? ''}`, book: book.book, hash: book.hash, ...(book.dir !== undefined ? { dir: book.dir } : {}) };
  /** Why the pool's workers cannot evaluate this book (it compiled here, not there), once found. */
  let bookUnavailable: string | undefined;
  let lastWarn = -Infinity;
  const warnInPlace = (what: string, why: unknown) => {
    const now = Date.now();
    if (now - lastWarn < IN_PLACE_WARN_MS) return;
    lastWarn = now;
    log.warn({ err: why }, `long texts are read on the event loop (${what}): the decision is the same, other sessions wait meanwhile`);
  };

  const ahead = new ReadsAhead();
  /** The payload columns started ahead, by the interaction they are of, with the payload they were computed for. */
  const rowsAhead = new WeakMap<Interaction, { payload: unknown; columns: Promise<PayloadColumns | undefined> }>();

  return {
    async evaluate(predicates: readonly CompiledPredicate[], i: Interaction) {
      if (!pool || !hasLongText(i, minFor(i.kind)) || !predicates.some((p) => p.detectors.length > 0)) return evaluateHere(predicates, i);
      if (bookUnavailable !== undefined) {
        warnInPlace('the worker pool cannot evaluate this book', bookUnavailable);
        return evaluateHere(predicates, i);
      }
      const names = predicates.filter((p) => p.detectors.length > 0).map((p) => p.name);
      const rates = rateCounts.get(i);
      let answer;
      try {
        answer = (await runShared(pool, { kind: 'evaluate', book: payload.id, names, interaction: i, ...(rates ? { rates } : {}) }, payload)) as Array<[string, PredicateValue]> | undefined;
      } catch (err) {
        if (!(err instanceof PoolWorkerError && err.code === BOOK_UNAVAILABLE)) throw err;
        bookUnavailable = err.message;
      }
      if (!answer) {
        warnInPlace(bookUnavailable !== undefined ? 'the worker pool cannot evaluate this book' : 'the worker pool is not available', bookUnavailable ?? 'no worker could start');
        return evaluateHere(predicates, i);
      }
      const got = new Map(answer);
      const values = new Map<string, PredicateValue>();
      // Semantic predicates (no detectors) were not sent: their value is the same constant here.
      for (const p of predicates) values.set(p.name, got.get(p.name) ?? evaluateHere([p], i).get(p.name)!);
      return values;
    },
    auditAhead(i) {
      if (!pool || !spare || !hasLongText(i, minFor(i.kind))) return;
      const payload = auditPayloadOf(i);
      // Not admitted, as a read's hashes ahead: a full spare thread refuses, and the row is built after the decision.
      const columns = runShared(spare, { kind: 'audit_payload', payload, interaction: i }).catch(() => undefined) as Promise<PayloadColumns | undefined>;
      rowsAhead.set(i, { payload, columns });
    },
    readAhead(text, keyOf, options) {
      if (!pool || !spare || text.length < minChars) return;
      // A key that cannot be read now fails the record after the decision, as before.
      void keyOf().then((key) => {
        const job = { text, key: new Uint8Array(key), options: { k: options.k, window: options.window, max_per_read: options.max_per_read } };
        // Not admitted: a spare thread with its queue full refuses, and the read is hashed after the decision instead.
        const answer = (kind: 'read_digest' | 'read_hashes') => runShared(spare, { kind, ...job }).catch(() => undefined);
        ahead.start(text, readKey(key, options), answer('read_digest') as Promise<string | undefined>, answer('read_hashes') as Promise<string[] | undefined>);
      }, () => undefined);
    },
    async readHashesOf(text, key, options) {
      if (!pool || text.length < minChars) return undefined;
      const early = await ahead.take(text, readKey(key, options), 'hashes');
      if (early !== undefined) return early;
      // A read whose check was let into the pool is not refused half way: its hashes are not held to the queue's bound.
      const answer = await runShared(pool, { kind: 'read_hashes', text, key: new Uint8Array(key), options: { k: options.k, window: options.window, max_per_read: options.max_per_read } }, undefined, true);
      if (!answer) warnInPlace('the worker pool is not available', 'no worker could start');
      return (answer as string[] | undefined) ?? undefined;
    },
    async readDigestOf(text, key, options) {
      if (!pool || text.length < minChars) return undefined;
      const early = await ahead.take(text, readKey(key, options), 'digest');
      if (early !== undefined) return early;
      // The text is shared with the workers already (the check's detector pass and audit row): the job carries a handle.
      const answer = await runShared(pool, { kind: 'read_digest', text, key: new Uint8Array(key), options: { k: options.k, window: options.window, max_per_read: options.max_per_read } }, undefined, true);
      if (answer === undefined) warnInPlace('the worker pool is not available', 'no worker could start');
      return typeof answer === 'string' ? answer : undefined;
    },
    async outgoingOf(job, key, options) {
      if (!pool || !hasLongText(job.texts, minSendChars)) return undefined;
      const answer = await runShared(pool, { kind: 'outgoing', job, key: new Uint8Array(key), options: { k: options.k, window: options.window, max_per_read: options.max_per_read } });
      if (!answer) warnInPlace('the worker pool is not available', 'no worker could start');
      return (answer as OutgoingReading | undefined) ?? undefined;
    },
    async untrustedHashesOf(text, key, job) {
      if (!pool || text.length < minChars) return undefined;
      // Part of a check already let in, as a read's hashes are.
      const answer = await runShared(pool, { kind: 'provenance', text, key: new Uint8Array(key), ...job }, undefined, true);
      if (!answer) warnInPlace('the worker pool is not available', 'no worker could start');
      return (answer as UntrustedHashes | undefined) ?? undefined;
    },
    async auditEntry(entry) {
      if (!pool || !hasLongText(entry.interaction ?? entry.payload, minFor(entry.kind))) return entry;
      // The time of the decision, not of the worker's turn.
      const stamped: AuditEntry = { ...entry, ts: entry.ts ?? Date.now() };
      // Its payload columns computed ahead for this very payload and interaction: the rest of the row is short.
      const early = entry.interaction !== undefined ? rowsAhead.get(entry.interaction) : undefined;
      if (early !== undefined && early.payload === entry.payload) {
        rowsAhead.delete(entry.interaction!);
        const columns = await early.columns;
        if (columns) return useBuiltRow(stamped, auditFields(stamped, columns));
      }
      let built: BuiltAuditRow | undefined;
      try {
        built = (await runShared(pool, { kind: 'audit_row', entry: stamped }, undefined, true)) as BuiltAuditRow | undefined;
      } catch (err) {
        log.warn({ err }, 'the audit row of a long interaction could not be built in the worker pool; it is built on the event loop');
      }
      if (!built) return stamped;
      return useBuiltRow(stamped, built);
    },
  };
}

/** Names a flow key and the options a read's hashes depend on: what was read ahead answers only a read under these. */
function readKey(key: Buffer, o: ReadHashOptions): string {
  return `${key.toString('base64')}/${o.k}/${o.window}/${o.max_per_read}`;
}

/** Reads whose digest and hashes were started ahead (the newest; an older one is read again if it comes to that). */
const READS_AHEAD = 4;

interface ReadAhead {
  key: string;
  digest?: Promise<string | undefined> | undefined;
  hashes?: Promise<string[] | undefined> | undefined;
}

/** The digests and hashes started ahead, by their text; each answers once (a failed or refused one: undefined). */
class ReadsAhead {
  private readonly reads = new Map<string, ReadAhead>();

  start(text: string, key: string, digest: Promise<string | undefined>, hashes: Promise<string[] | undefined>): void {
    this.reads.delete(text);
    this.reads.set(text, { key, digest, hashes });
    if (this.reads.size > READS_AHEAD) this.reads.delete(this.reads.keys().next().value!);
  }

  take<K extends 'digest' | 'hashes'>(text: string, key: string, what: K): Promise<Awaited<ReadAhead[K]>> | undefined {
    const read = this.reads.get(text);
    if (read === undefined || read.key !== key) return undefined;
    const got = read[what];
    read[what] = undefined;
    if (read.digest === undefined && read.hashes === undefined) this.reads.delete(text);
    return got as Promise<Awaited<ReadAhead[K]>> | undefined;
  }
}
