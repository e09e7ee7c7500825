import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Guard } from '../core/types.js';
import { buildGuard, prepareBook, type BuildGuardOptions, type PreparedBook } from '../guard/build.js';
import type { CapabilityMap } from '../guard/capabilities.js';
import type { GuardModelHooks } from '../guard/model/index.js';
import { openGuardStore } from '../store/open.js';
import type { CaseContext } from './cases.js';

/**
 * The seam between the evaluation harness and the guard. The harness replays each case through a guard with
 * fresh state (Γ, τ, quarantine); how that freshness is obtained is the factory's business.
 */

/** A guard for one case, and how to release what it holds (a temp store, an LLM client) when the case ends. */
export interface GuardHandle {
  guard: Guard;
  /** Tells the guard a server's tool listing (the session's catalogue: annotations, action provenance). */
  recordTools?: CapabilityMap['recordTools'];
  close?: () => Promise<void> | void;
}

/** Builds a fresh guard for one case, from the case's policy name and context (agent, profile, extras). */
export type GuardFactory = (policyName: string, context: CaseContext) => Promise<GuardHandle>;

/** What every case guard of a run shares: the `guard:` settings, and a maker of fresh model hooks. */
export interface CaseGuardSettings {
  settings?: BuildGuardOptions['settings'];
  /**
   * Fresh model hooks per case (their observation history is per session, and cases reuse session names),
   * typically `() => createGuardModel(client, options)` over one shared client (config/guard.ts `modelHooksFor`).
   */
  modelFor?: () => GuardModelHooks;
}

/**
 * The data-flow key of every case's store. Winnowing keeps the fingerprints whose keyed hash is smallest in each
 * window, so with a random key per store (the default) how many fingerprints a read and a send share, and with it a
 * decision near `min_matches`, changed from run to run. One fixed key makes every case decide the same way on every
 * run and in any company. Nothing outlives the case's memory store, so a known key protects nothing less.
 */
export const EVAL_FLOW_KEY: Buffer = createHash('sha256').update('quadguard/eval/flow-key/v1').digest();

/**
 * The guard factory the CLI uses: the real pipeline (`buildGuard`) with policy books read from `policiesDir` (a
 * folder, or several searched in order), a fresh in-memory store per case (Γ, τ, quarantine and data flow start
 * empty, under the same flow key: see EVAL_FLOW_KEY), and each compiled book and its index shared across the cases
 * of the run.
 *
 * @example
 * const guardFor = pipelineGuardFactory('./policies');
 * const { guard, close } = await guardFor('default', { agent: 'assistant' });
 */
export function pipelineGuardFactory(policiesDir: string | readonly string[], run: CaseGuardSettings = {}): GuardFactory {
  const prepared = new Map<string, Promise<PreparedBook>>();
  const folders = typeof policiesDir === 'string' ? [policiesDir] : policiesDir;
  return async function pipelineGuardFor(policyName) {
    // The first folder that has a book of that name: a run may mix the shipped books with one's own.
    const dir = folders.map((f) => join(f, policyName)).find((d) => existsSync(d)) ?? join(folders[0] ?? '.', policyName);
    let book = prepared.get(dir);
    if (!book) {
      book = prepareBook(dir);
      prepared.set(dir, book);
      book.catch(() => prepared.delete(dir));
    }
    const store = await openGuardStore(':memory:', undefined, { flowKey: EVAL_FLOW_KEY });
    try {
      const built = await buildGuard({
        policy: await book,
        store,
        ...(run.settings ? { settings: run.settings } : {}),
        ...(run.modelFor ? { model: run.modelFor() } : {}),
      });
      return { guard: built.pipeline, close: () => store.close(), recordTools: (server, tools) => built.capabilities.recordTools(server, tools) };
    } catch (err) {
      await store.close();
      throw err;
    }
  };
}
