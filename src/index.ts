/**
 * The public library surface of QuadGuard, for embedding it in your own host: run the guarding proxy, build a
 * guard and ask it about interactions, load, check, sign and explain a policy book, and the types of all of these.
 * Everything else under `src/` is internal and may change between versions. The CLI (`quadguard`) is the other
 * entry point. docs/architecture.md says where each part lives.
 *
 * @example
 * import { buildGuard } from 'quadguard';
 * const { pipeline, close } = await buildGuard({ policy: 'policies/default', store: '.quadguard/state.db' });
 * const decision = await pipeline.check({ kind: 'tool_call', agent: 'me', session: 's1', profile: {},
 *   server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } });
 * await close();
 */

// ── The proxy: a config in, an MCP server out (stdio, Streamable HTTP, legacy SSE) ─────────────────────────────
export { createProxy, type GuardedProxy, type ProxyOptions } from './proxy/index.js';
export { loadConfigFile, validateConfig, type LoadedConfig } from './config/load.js';
export { ConfigSchema, type Config } from './config/schema.js';
export { guardOptionsFromConfig } from './config/guard.js';

// ── A guard: one way to build it, one method to ask it ────────────────────────────────────────────────────────
export { buildGuard, BuildGuardOptionsSchema, prepareBook, type BuildGuardOptions, type BuiltGuard, type PreparedBook } from './guard/build.js';
export type { GuardPipeline } from './guard/pipeline.js';
export { GUARD_DEFAULTS, PipelineOptionsSchema, type PipelineOptions } from './guard/options.js';
export { explainInteraction, type Explanation, type ExplainOptions } from './guard/explain.js';

// ── Policy books: load, check, sign, verify ───────────────────────────────────────────────────────────────────
export { loadBook } from './policy/load.js';
export { compileBook, type CompileOptions, type CompileResult } from './policy/compile.js';
export type { CompiledBook } from './policy/compiled.js';
export { PolicyBookSchema, type PolicyBook, type Predicate, type Rule } from './policy/schema.js';
export { formatDiagnostic, type PolicyDiagnostic } from './policy/errors.js';
export { generateSigningKeys, signBook, verifyBook } from './policy/sign.js';
export { bookHash } from './policy/book-hash.js';

// ── The store: SQLite by default, PostgreSQL for replicas ─────────────────────────────────────────────────────
export { openGuardStore } from './store/open.js';
export type { GuardStore } from './store/engine.js';

// ── The types every part shares ───────────────────────────────────────────────────────────────────────────────
export {
  AnyInteractionSchema,
  DecisionSchema,
  InteractionSchema,
  makeDecision,
  type Decision,
  type Guard,
  type Interaction,
  type InteractionInput,
  type InteractionKind,
  type Truth,
  type Witness,
} from './core/types.js';
export { INTERACTION_KINDS, KINDS, type KindRow } from './core/kinds.js';
export {
  ConfigError,
  DetectorConfigError,
  DownstreamError,
  errorMessage,
  LlmError,
  PolicyError,
  QuadGuardError,
  StoreError,
} from './core/errors.js';
