import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGuard, type BuildGuardOptions, type BuiltGuard } from '../../src/guard/build.js';
import { createGuardModel } from '../../src/guard/model/index.js';
import type { ModelOptions } from '../../src/guard/options.js';
import { InteractionSchema, type Interaction, type InteractionInput } from '../../src/core/types.js';
import { LlmClient } from '../../src/llm/client.js';
import type { LlmConfigInput } from '../../src/llm/config.js';
import { REFEREE_SYSTEM } from '../../src/llm/prompts/referee.js';
import { STATE_TRACKER_SYSTEM } from '../../src/llm/prompts/state-tracker.js';
import { THREAT_WATCHER_SYSTEM } from '../../src/llm/prompts/threat-watcher.js';
import type { RecordedRequest, ScriptedLlmServer } from '../support/scripted-llm-server.js';

/** The model-layer test book (two semantic predicates, a hard and a soft rule). */
export const BOOK = join(import.meta.dirname, 'book');
export const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');

/** Which evaluator a recorded chat request came from. */
export type Role = 'tracker' | 'referee' | 'threat';

export function roleOf(body: any): Role | undefined {
  const system = body?.messages?.[0]?.content;
  if (system === STATE_TRACKER_SYSTEM) return 'tracker';
  if (system === REFEREE_SYSTEM) return 'referee';
  if (system === THREAT_WATCHER_SYSTEM) return 'threat';
  return undefined;
}

/** Matcher for `server.when`: a role on a tier ('light-m' / 'strong-m'). */
export const is = (role: Role, tier: 'light' | 'strong') => (body: any): boolean => roleOf(body) === role && body?.model === `${tier}-m`;

/** `role/tier` of each chat request, in order. */
export function calls(server: ScriptedLlmServer): string[] {
  return server.chatRequests.map((r: RecordedRequest) => `${roleOf(r.body)}/${String(r.body?.model).replace(/-m$/, '')}`);
}

/** The parsed user message of a chat request. */
export function userJson(r: RecordedRequest): any {
  return JSON.parse(r.body.messages[1].content);
}

/** A client of the scripted server; the 10 s timeout only keeps a loaded machine from failing a call (timeout tests set their own). */
export function clientFor(server: ScriptedLlmServer, config: Partial<LlmConfigInput> = {}): LlmClient {
  return new LlmClient(
    { base_url: server.baseUrl, models: { light: 'light-m', strong: 'strong-m' }, timeout_ms: 10_000, max_retries: 0, cache_size: 0, ...config },
    { env: {}, retryBaseMs: 2, retryMaxMs: 20, random: () => 0.5 },
  );
}

/** A guard over `book` (default: the test book) with the model hooks of `client`, in a temp dir. */
export async function guardWith(
  client: LlmClient | undefined,
  opts: { book?: string; model?: Partial<ModelOptions>; extra?: Partial<BuildGuardOptions> } = {},
): Promise<BuiltGuard & { dir: string; dispose(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'qg-guard-model-'));
  const g = await buildGuard({
    policy: opts.book ?? BOOK,
    store: join(dir, 'state.db'),
    ...(client ? { model: createGuardModel(client, opts.model ?? {}) } : {}),
    ...opts.extra,
  });
  return {
    ...g,
    dir,
    async dispose() {
      await g.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function interaction(i: Partial<InteractionInput> & Pick<InteractionInput, 'kind'>): Interaction {
  return InteractionSchema.parse({ agent: 'assistant', session: 's1', ...i });
}

/** A bank tool call. */
export function bank(tool: string, args: Record<string, unknown>): Interaction {
  return interaction({ kind: 'tool_call', server: 'bank', tool, arguments: args });
}

/** A state-tracker answer. */
export function updates(...u: Array<[string, boolean, number]>): { content: object } {
  return { content: { updates: u.map(([name, value, confidence]) => ({ name, value, confidence })) } };
}

/** A referee answer. */
export function verdict(v: 'allow' | 'deny' | 'ambiguous', confidence = 0.9, reason = 'checked the call'): { content: object } {
  return { content: { verdict: v, confidence, reason } };
}
