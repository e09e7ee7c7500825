import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Guard } from '../core/types.js';
import { buildGuard, prepareBook, type BuildGuardOptions, type PreparedBook } from '../guard/build.js';
import type { GuardModelHooks } from '../guard/model/index.js';
import type { CaseContext } from './cases.js';

/**
 * The seam between the evaluation harness and the guard. The harness replays each case through a guard with
 * fresh state (Γ, τ, quarantine); how that freshness is obtained is the factory's business.
 */

/** A guard for one case, and how to release what it holds (a temp store, an LLM client) when the case ends. */
export interface GuardHandle {
  guard: Guard;
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
 * The guard factory the CLI uses: the real pipeline (`buildGuard`) with policy books read from `policiesDir` (a
 * folder, or several searched in order), a
 * fresh in-memory store per case (Γ, τ and quarantine start empty), and each compiled book and its index shared
 * across the cases of the run.
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
    const built = await buildGuard({
      policy: await book,
      ...(run.settings ? { settings: run.settings } : {}),
      ...(run.modelFor ? { model: run.modelFor() } : {}),
    });
    return { guard: built.pipeline, close: built.close };
  };
}
