import { EvalRunError } from '../core/errors.js';
import type { Guard } from '../core/types.js';
import type { CaseContext } from './cases.js';

/**
 * The seam between the evaluation harness and the guard pipeline. The harness replays each case through a guard
 * with fresh state (Γ, τ, quarantine); how that freshness is obtained — an in-memory store, a temporary SQLite
 * file, a new pipeline per case — is the factory's business.
 */

/** A guard for one case, and how to release what it holds (a temp store, an LLM client) when the case ends. */
export interface GuardHandle {
  guard: Guard;
  close?: () => Promise<void> | void;
}

/** Builds a fresh guard for one case, from the case's policy name and context (agent, profile, extras). */
export type GuardFactory = (policyName: string, context: CaseContext) => Promise<GuardHandle>;

/**
 * What `src/guard/pipeline-factory.ts` is expected to export. It may return a handle or a bare `Guard`.
 */
export interface PipelineFactoryModule {
  createGuardForCase(policiesDir: string, policyName: string, context: CaseContext): Promise<GuardHandle | Guard>;
}

/** Loads the pipeline module; replaceable in tests. The specifier is a variable so the build does not need it. */
export type PipelineLoader = () => Promise<unknown>;

const PIPELINE_MODULE = '../guard/pipeline-factory.js';
const loadPipeline: PipelineLoader = () => import(PIPELINE_MODULE);

/**
 * The guard factory the CLI uses: the real pipeline from `src/guard/pipeline-factory.ts`, with policy books read
 * from `policiesDir`. The module is imported lazily, on the first case, so `quadguard eval --help` and the rest
 * of the CLI work in a build without it; a build without it fails with `eval_no_pipeline`.
 *
 * @example
 * const guardFor = defaultGuardFactory('./policies');
 * const { guard, close } = await guardFor('default', { agent: 'assistant' });
 */
export function defaultGuardFactory(policiesDir: string, load: PipelineLoader = loadPipeline): GuardFactory {
  let module: Promise<PipelineFactoryModule> | undefined;
  return async function pipelineGuardFor(policyName, context) {
    module ??= importPipeline(load);
    const create = (await module).createGuardForCase;
    return toHandle(await create(policiesDir, policyName, context));
  };
}

async function importPipeline(load: PipelineLoader): Promise<PipelineFactoryModule> {
  let mod: unknown;
  try {
    mod = await load();
  } catch (err) {
    if (isModuleNotFound(err)) throw noPipeline(err);
    // The module exists but failed while loading: that is a bug to see, not a missing feature.
    throw new EvalRunError('eval_pipeline_failed', `the guard pipeline failed to load: ${(err as Error).message}`, { cause: err });
  }
  const create = (mod as Partial<PipelineFactoryModule> | null)?.createGuardForCase;
  if (typeof create !== 'function') throw noPipeline();
  return { createGuardForCase: create };
}

function noPipeline(cause?: unknown): EvalRunError {
  return new EvalRunError(
    'eval_no_pipeline',
    'the guard pipeline is not available in this build (src/guard/pipeline-factory.ts with createGuardForCase is missing)',
    cause === undefined ? {} : { cause },
  );
}

/**
 * True only when the pipeline module itself is missing. A module the pipeline imports being missing is a broken
 * build, not a build without the pipeline, so the missing path must be the pipeline factory's own. Node words it
 * `Cannot find module '<path>' imported from <importer>`; test runners word it differently.
 */
export function isModuleNotFound(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  const missing = /(?:cannot find module|failed to load url|failed to load)\s+['"]?([^'"\s]+)/i.exec(message)?.[1];
  return missing !== undefined && /pipeline-factory(\.[cm]?[jt]s)?$/.test(missing);
}

/** Accepts a handle or a bare guard. */
export function toHandle(value: GuardHandle | Guard): GuardHandle {
  if ('guard' in value && typeof value.guard?.check === 'function') return value;
  if ('check' in value && typeof value.check === 'function') return { guard: value };
  throw new EvalRunError('eval_bad_guard', 'the guard factory returned neither a Guard nor { guard, close? }');
}
