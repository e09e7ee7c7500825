import { join } from 'node:path';
import type { CaseContext } from '../eval/cases.js';
import type { GuardHandle } from '../eval/guard-factory.js';
import { openStore } from '../store/db.js';
import { prepareBook, type PreparedBook } from './factory.js';
import type { GuardModelHooks } from './model.js';
import { GuardPipeline, type PipelineDeps } from './pipeline.js';

/**
 * The evaluation harness's guard factory: the same pipeline the proxy runs, with fresh state per case (a new
 * in-memory store: Γ, τ and quarantine start empty) and the compiled book and its index shared across cases.
 */
const prepared = new Map<string, Promise<PreparedBook>>();

/**
 * Options shared by every case of a run (a model, pipeline settings). Set by the eval command before the run.
 * `modelFor` builds fresh model hooks per case (their observation history is per session, and cases reuse
 * session names), typically `() => createGuardModel(client, options)` over one shared client.
 */
export const caseGuardSettings: Pick<PipelineDeps, 'options' | 'semantic' | 'reviewer'> & { modelFor?: () => GuardModelHooks } = {};

export async function createGuardForCase(policiesDir: string, policyName: string, _context: CaseContext): Promise<GuardHandle> {
  const dir = join(policiesDir, policyName);
  let book = prepared.get(dir);
  if (!book) {
    book = prepareBook(dir);
    prepared.set(dir, book);
    book.catch(() => prepared.delete(dir));
  }
  const { book: compiled, index } = await book;
  const store = openStore(':memory:');
  const { modelFor, ...settings } = caseGuardSettings;
  const pipeline = new GuardPipeline({ book: compiled, index, store, ...settings, ...(modelFor ? { model: modelFor() } : {}) });
  return { guard: pipeline, close: () => store.close() };
}
