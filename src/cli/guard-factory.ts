import { dirname, join } from 'node:path';
import type { Config } from '../config/schema.js';
import { createToolScreen } from '../guard/tool-screen.js';
import { loadGuard } from '../guard/factory.js';
import { createGuardModel, createModelEmbedder } from '../guard/model.js';
import type { Guard } from '../core/types.js';
import type { Logger } from '../core/log.js';
import { isPostgresUrl } from '../store/location.js';
import type { CompiledBook } from '../policy/compiled.js';
import type { ToolsListedHook } from '../proxy/pool.js';
import type { DecisionRecorder } from '../proxy/refusals.js';

/** What the proxy gets from the guard side of a config. */
export interface ConfiguredGuard {
  /** The four-part pipeline (absent when the config names no policy: only the tool lists decide). */
  guard?: Guard;
  /** Tool pinning and description screening, run on every downstream listing. */
  onToolsListed?: ToolsListedHook;
  /** The compiled policy book (the live view shows its rule texts). */
  book?: CompiledBook;
  /** Records the proxy's own refusals in the pipeline's audit chain. */
  record?: DecisionRecorder;
  close(): void | Promise<void>;
}

/**
 * Builds the policy pipeline for a config: loads (and, with `policy_public_key`, verifies) the book, opens the
 * store, and returns the guard and the tool-screening hook. Any error here stops start-up: a proxy that was
 * asked to enforce a policy never runs without it.
 *
 * With an `llm:` section, the model hooks of src/guard/model.ts are wired in (tuned by `guard.model`), and with
 * `llm.models.embedding` top-k runs on that model through a vectra index in `<store dir>/index/<book hash>`. An
 * embedding endpoint that fails at start-up is not fatal: the local embedder is used, with a warning. A
 * missing API key for a remote endpoint is (ConfigError from the client).
 */
export async function createGuardForConfig(config: Config, logger: Logger): Promise<ConfiguredGuard> {
  if (config.policy === undefined) {
    logger.warn('no policy configured: only the per-server tool allow/deny lists are enforced');
    return { close() {} };
  }
  // The model layer (and the openai package under it) loads only when the config asks for a model.
  const client = config.llm ? new (await import('../llm/client.js')).LlmClient(config.llm, { logger }) : undefined;
  const embedder = client ? await createModelEmbedder(client, logger) : undefined;
  const loaded = await loadGuard({
    policy: config.policy,
    store: config.store,
    logger,
    ...(config.policy_public_key ? { publicKeyPath: config.policy_public_key } : {}),
    ...(config.guard ? { options: config.guard } : {}),
    ...(client ? { model: createGuardModel(client, config.guard?.model ?? {}, logger) } : {}),
    ...(embedder ? { embedder, indexFolder: (hash: string) => join(isPostgresUrl(config.store) ? join(process.cwd(), '.quadguard') : dirname(config.store), 'index', hash.slice(0, 16)) } : {}),
  });
  if (client) logger.info({ mod: 'guard', light: client.model('light'), strong: client.model('strong'), embedding: embedder?.id ?? 'local' }, 'model layer enabled');
  const screen = createToolScreen(loaded.pipeline.store, logger);
  return { guard: loaded.pipeline, book: loaded.book, onToolsListed: screen, record: (i, d) => loaded.pipeline.record(i, d), close: () => loaded.close() };
}
