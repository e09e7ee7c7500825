import { join } from 'node:path';
import { InteractionSchema, type Interaction, type InteractionInput } from '../../../src/core/types.js';
import { prepareBook, type PreparedBook } from '../../../src/guard/build.js';
import type { GuardModelHooks } from '../../../src/guard/model/index.js';
import { ModelOptionsSchema, type ModelOptions } from '../../../src/guard/options.js';
import { createGuardEnv, type PipelineDeps } from '../../../src/guard/pipeline.js';
import { newContext, type GuardContext, type GuardEnv, type Stage } from '../../../src/guard/stages/index.js';
import { openStore } from '../../../src/store/db.js';

/** Books the stage tests run on: the shipped default book, and the model-layer test book (semantic predicates). */
export const DEFAULT_BOOK = join(import.meta.dirname, '../../../policies/default');
export const MODEL_BOOK = join(import.meta.dirname, '../../guard-model/book');

const prepared = new Map<string, Promise<PreparedBook>>();

/** The stages' environment over `book` and a fresh in-memory store; `close` releases the store. */
export async function envFor(book = DEFAULT_BOOK, deps: Partial<Omit<PipelineDeps, 'book' | 'index' | 'store'>> = {}): Promise<GuardEnv & { close(): void }> {
  let p = prepared.get(book);
  if (!p) {
    p = prepareBook(book);
    prepared.set(book, p);
  }
  const { book: compiled, index } = await p;
  const store = openStore(':memory:');
  return Object.assign(createGuardEnv({ book: compiled, index, store, ...deps }), { close: () => store.close() });
}

export function interaction(i: Partial<InteractionInput> & Pick<InteractionInput, 'kind'>): Interaction {
  return InteractionSchema.parse({ agent: 'assistant', session: 's1', ...i });
}

/** A context for `i` taken through `stages` in order (the stages under test start after them). */
export async function through(env: GuardEnv, i: Interaction, stages: readonly Stage[]): Promise<GuardContext> {
  const ctx = newContext(i);
  for (const s of stages) await s.run(ctx, env);
  return ctx;
}

/** Model hooks that call no model: every hook is replaceable. */
export function fakeModel(over: Partial<GuardModelHooks> = {}, options: Partial<ModelOptions> = {}): GuardModelHooks {
  return {
    semantic: async () => ({ values: new Map() }),
    expand: async () => ({ values: new Map() }),
    reviewer: async () => ({ ruling: 'deny' }),
    observe: () => {},
    options: ModelOptionsSchema.parse(options),
    ...over,
  };
}

export const usage = (calls: number) => ({ calls, promptTokens: 10 * calls, completionTokens: calls, ms: 5 * calls });
