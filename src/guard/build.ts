import { z } from 'zod';
import { silentLogger, type Logger } from '../core/log.js';
import type { CompiledBook } from '../policy/compiled.js';
import { formatDiagnostic, type PolicyDiagnostic } from '../policy/errors.js';
import type { Embedder } from '../retrieval/types.js';
import type { GuardStore } from '../store/engine.js';
import { isPostgresUrl, openGuardStore } from '../store/open.js';
import { AuditRetentionSchema, startAuditRetention } from '../store/audit-retention.js';
import { prepareBook, type PreparedBook } from './book.js';
import { CapabilityMap, type CapabilityOverride } from './capabilities.js';
import type { GuardModelHooks } from './model/index.js';
import { GUARD_DEFAULTS, PipelineOptionsSchema } from './options.js';
import { AgentPrincipalSchema, Principals } from './principals.js';
import { GuardPipeline } from './pipeline.js';
import type { Stage } from './stages/index.js';

/**
 * The one way to build a guard: `serve` and `wrap` (from a config, see config/guard.ts), `eval`, `replay`, the
 * demos, the benches and the tests all call `buildGuard`. Every default lives in GUARD_DEFAULTS (options.ts).
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isPrepared = (v: unknown): v is PreparedBook => isObject(v) && isObject(v.book) && isObject(v.index) && Array.isArray(v.warnings);
const isStore = (v: unknown): v is GuardStore => isObject(v) && isObject(v.state) && isObject(v.audit) && typeof v.close === 'function';
const isModel = (v: unknown): v is GuardModelHooks => isObject(v) && typeof v.semantic === 'function' && typeof v.reviewer === 'function' && typeof v.observe === 'function';
const isFunction = (v: unknown): v is (...args: never[]) => unknown => typeof v === 'function';

/** What `buildGuard` takes. Everything but `policy` has a default. */
export const BuildGuardOptionsSchema = z.strictObject({
  /** A policy book folder or file, or a book already prepared (shared by many guards: eval cases, replays). */
  policy: z.union([z.string().min(1), z.custom<PreparedBook>(isPrepared, 'expected a policy path or a prepared book')]),
  /** A SQLite file, `:memory:`, or an open store (which the caller closes). Default: memory. */
  store: z.union([z.string().min(1), z.custom<GuardStore>(isStore, 'expected a store path, a postgres:// URL or an open store')]).default(GUARD_DEFAULTS.store),
  /** The audit key of a store given by path or URL (the config's `audit_key`): a file, or an environment variable. */
  auditKey: z.union([z.strictObject({ env: z.string().min(1) }), z.strictObject({ file: z.string().min(1) })]).optional(),
  /**
   * Answer once a decision's audit row is in the journal and commit rows in groups (the config's `audit_journal`).
   * Default: on for a SQLite store, off for PostgreSQL (docs/audit.md).
   */
  auditJournal: z.boolean().optional(),
  /** Drop old audit rows in the background (the config's `audit_retention`); only on a store this guard opens. */
  auditRetention: AuditRetentionSchema.optional(),
  /** The `guard:` settings of a config (tracker budget, watcher, thresholds, audit, approvals). */
  settings: PipelineOptionsSchema.prefault({}),
  /** The model hooks (`createGuardModel`); absent, the guard is deterministic. The one way to pass a model. */
  model: z.custom<GuardModelHooks>(isModel, 'expected the hooks of createGuardModel').optional(),
  /** PEM file of the ed25519 public key: when given, an unsigned or tampered book is refused (path policies only). */
  publicKeyPath: z.string().min(1).optional(),
  /** Dense embedder for top-k (path policies only; default: the local hashing embedder). */
  embedder: z.custom<Embedder>((v) => isObject(v) && typeof v.embed === 'function', 'expected an embedder').optional(),
  /** Where the dense index is persisted: a folder, or a function of the book hash. */
  indexFolder: z.union([z.string().min(1), z.custom<(hash: string) => string>(isFunction)]).optional(),
  logger: z.custom<Logger>((v) => isObject(v) && typeof v.child === 'function', 'expected a pino logger').optional(),
  /** Clock (ms since the epoch): tests of the burst window, replays on recorded timestamps. */
  now: z.custom<() => number>(isFunction).optional(),
  /** Capability labels from the config (per server and tool glob); they override the book's and annotations. */
  capabilityOverrides: z.array(z.custom<CapabilityOverride>(isObject)).default([]),
  /** Per agent: its principal and the agents it may share private data with (config `agents`); default principal `user`. */
  principals: z.record(z.string(), AgentPrincipalSchema).default({}),
  /** The stages to run (default GUARD_STAGES); `policy explain` adds one that reads the verifier's outcomes. */
  stages: z.custom<readonly Stage[]>((v) => Array.isArray(v), 'expected a list of stages').optional(),
});
export type BuildGuardOptions = z.input<typeof BuildGuardOptionsSchema>;

/** A built guard: the pipeline, its book, and how to release what `buildGuard` opened. */
export interface BuiltGuard {
  pipeline: GuardPipeline;
  book: CompiledBook;
  warnings: PolicyDiagnostic[];
  store: GuardStore;
  /** Capability labels of tools; feed it each server's tool listing (`recordTools`) so annotations count. */
  capabilities: CapabilityMap;
  /** Closes the store if `buildGuard` opened it (not a store that was passed in). */
  close(): Promise<void>;
}

/**
 * Builds the four-part guard for a policy book and a store. Errors (an unreadable or invalid book, a bad
 * signature, an unopenable store) propagate: a guard that was asked to enforce a policy never runs without it.
 *
 * @example
 * const { pipeline, close } = await buildGuard({ policy: 'policies/default', store: '.quadguard/state.db' });
 * const decision = await pipeline.check(interaction);
 */
export async function buildGuard(input: BuildGuardOptions): Promise<BuiltGuard> {
  const o = BuildGuardOptionsSchema.parse(input);
  const logger = o.logger ?? silentLogger();
  let prepared: PreparedBook;
  if (typeof o.policy === 'string') {
    prepared = await prepareBook(o.policy, { publicKeyPath: o.publicKeyPath, embedder: o.embedder, indexFolder: o.indexFolder, logger });
    for (const w of prepared.warnings) {
      // A semantic predicate (no detector; the default book's harmful_request) is decided by a model by design:
      // with one that is what happens, without one it stays unknown and its rules follow on_unknown. Nothing is
      // wrong at start-up, so it is not a warning here (`quadguard policy check` still lists it).
      if (w.code === 'policy_semantic_predicate') {
        if (!o.model) logger.info({ mod: 'policy' }, `${formatDiagnostic(w).replace(/: warning: /, ': ')} (no llm: section configured)`);
        continue;
      }
      logger.warn({ mod: 'policy' }, formatDiagnostic(w));
    }
  } else {
    prepared = o.policy;
  }
  const ownsStore = typeof o.store === 'string';
  // A guard lives as long as its proxy: its SQLite file is checkpointed in the background, never inside a decision.
  const store = typeof o.store === 'string' ? await openGuardStore(o.store, logger, {
        backgroundCheckpoint: true,
        // With the journal, decisions are answered once their row is in it, committed in groups (audit-journal.ts).
        auditJournal: o.auditJournal ?? !isPostgresUrl(o.store),
        // A lock held by another process is waited for in short tries between which other sessions are answered.
        lockSliceMs: 20,
        ...(o.auditKey && 'file' in o.auditKey ? { auditKeyFile: o.auditKey.file } : {}),
        ...(o.auditKey && 'env' in o.auditKey ? { auditKeyEnv: o.auditKey.env } : {}),
      }) : o.store;
  const retention = ownsStore && o.auditRetention ? startAuditRetention(store, o.auditRetention, logger) : undefined;
  const capabilities = new CapabilityMap(prepared.book.book.capabilities, o.capabilityOverrides);
  const pipeline = new GuardPipeline({
    capabilities,
    book: prepared.book,
    index: prepared.index,
    store,
    logger,
    options: o.settings,
    ...(o.model ? { model: o.model } : {}),
    ...(o.now ? { now: o.now } : {}),
    principals: new Principals(o.principals),
    ...(o.stages ? { stages: o.stages } : {}),
  });
  if (typeof o.policy === 'string') {
    const b = prepared.book;
    logger.info({ mod: 'guard', policy: b.book.name, version: b.book.version, hash: b.hash.slice(0, 12), predicates: b.predicates.length, rules: b.rules.length }, 'policy loaded');
  }
  return {
    pipeline,
    book: prepared.book,
    warnings: prepared.warnings,
    store,
    capabilities,
    close: async () => {
      await retention?.stop();
      if (ownsStore) await store.close();
    },
  };
}

export { prepareBook, type IndexFolder, type PreparedBook } from './book.js';
