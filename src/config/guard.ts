import { dirname, join } from 'node:path';
import { ConfigError } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import type { BuildGuardOptions } from '../guard/build.js';
import { createGuardModel, createModelEmbedder, type GuardModelHooks } from '../guard/model/index.js';
import type { LlmClient } from '../llm/client.js';
import type { Config } from './schema.js';
import type { CapabilityOverride } from '../guard/capabilities.js';

/**
 * A config's guard, as `buildGuard` options: the book (verified with `policy_public_key`), the store, the
 * `guard:` settings and, with an `llm:` section, the model hooks (tuned by `guard.model`) and, with
 * `llm.models.embedding`, top-k on that model through a vectra index in `<store dir>/index/<book hash>`. An
 * embedding endpoint that fails at start-up is not fatal: the local embedder is used, with a warning. A missing
 * API key for a remote endpoint is (ConfigError from the client).
 *
 * @example
 * const guard = await buildGuard(await guardOptionsFromConfig(config, logger));
 */
export async function guardOptionsFromConfig(config: Config, logger: Logger): Promise<BuildGuardOptions> {
  if (config.policy === undefined) throw new ConfigError('config_invalid', 'the config names no policy: there is no guard to build (add `policy: <book folder>`)');
  const client = await llmClientFor(config, logger);
  const embedder = client ? await createModelEmbedder(client, logger) : undefined;
  if (client) logger.info({ mod: 'guard', light: client.model('light'), strong: client.model('strong'), embedding: embedder?.id ?? 'local' }, 'model layer enabled');
  return {
    policy: config.policy,
    store: config.store,
    ...(config.audit_key ? { auditKey: config.audit_key } : {}),
    ...(config.audit_journal !== undefined ? { auditJournal: config.audit_journal } : {}),
    ...(config.audit_retention ? { auditRetention: config.audit_retention } : {}),
    logger,
    ...(config.policy_public_key ? { publicKeyPath: config.policy_public_key } : {}),
    ...(config.guard ? { settings: config.guard } : {}),
    capabilityOverrides: capabilityOverrides(config),
    principals: Object.fromEntries(Object.entries(config.agents).map(([name, a]) => [name, { principal: a.principal, share_private_with: a.share_private_with }])),
    ...(client ? { model: createGuardModel(client, config.guard?.model ?? {}, logger) } : {}),
    ...(embedder ? { embedder, indexFolder: (hash: string) => join(dirname(config.store), 'index', hash.slice(0, 16)) } : {}),
  };
}

/** The config's per-server `capabilities` as overrides of the book's labels. */
export function capabilityOverrides(config: Config): CapabilityOverride[] {
  return Object.entries(config.servers).flatMap(([server, s]) => Object.entries(s.capabilities).map(([match, labels]) => ({ server, match, labels })));
}

/**
 * A maker of fresh model hooks for a config with an `llm:` section (one client shared; the hooks' observation
 * history is per hook set), or undefined without one. Evaluation builds one set per case.
 */
export async function modelHooksFor(config: Config, logger?: Logger): Promise<(() => GuardModelHooks) | undefined> {
  const client = await llmClientFor(config, logger);
  if (!client) return undefined;
  return () => createGuardModel(client, config.guard?.model ?? {}, ...(logger ? [logger] : []));
}

/** The config's model client; the model layer (and the openai package under it) loads only when `llm:` is set. */
async function llmClientFor(config: Config, logger?: Logger): Promise<LlmClient | undefined> {
  if (!config.llm) return undefined;
  const { LlmClient } = await import('../llm/client.js');
  return new LlmClient(config.llm, logger ? { logger } : {});
}
