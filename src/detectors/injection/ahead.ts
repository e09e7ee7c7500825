import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { scopeCovers } from '../../core/kinds.js';
import type { Interaction } from '../../core/types.js';
import { inspectedFields } from '../common.js';
import { channelOf, CONTENT_SIGNALS, InjectionOptionsSchema, provideScore, signalsKeyOf, type InjectionChannel, type InjectionScore, type InjectionSignal } from './index.js';

/**
 * Scoring long texts ahead, in a worker thread. The injection scorer reads a 10 MB result for about half a second,
 * which on the event loop would stall every other session of the proxy. Before the tracker runs, `scoreAhead` sends
 * each long text an injection detector of the book will read to a worker running the very same `scoreInjection`,
 * awaits the score and hands it to the detector (`provideScore`), which then takes it instead of scoring. If the
 * worker cannot start or fails, nothing is handed over and the detector scores on the event loop as before: the
 * decision is the same either way, only where the work runs differs.
 */

/** Texts shorter than this are scored in place: the round trip to the worker would cost more than it frees. */
export const AHEAD_MIN_CHARS = 256 * 1024;

/** What one of the book's injection detectors reads: a field, the signal families, its predicate's scope. */
export interface AheadSpec {
  field: string;
  enabled: ReadonlySet<InjectionSignal>;
  scope: Parameters<typeof scopeCovers>[0];
}

/** The book's injection detectors, one spec per distinct scope, field and signal set. */
export function aheadSpecs(predicates: ReadonlyArray<{ def: { scope: AheadSpec['scope']; detectors: ReadonlyArray<{ type: string }> } }>): AheadSpec[] {
  const seen = new Set<string>();
  const out: AheadSpec[] = [];
  for (const p of predicates) {
    for (const d of p.def.detectors) {
      if (d.type !== 'injection') continue;
      const { type: _type, ...options } = d;
      const parsed = InjectionOptionsSchema.safeParse(options);
      if (!parsed.success) continue; // the book's compiler reports it
      const enabled: ReadonlySet<InjectionSignal> = new Set(parsed.data.signals ?? CONTENT_SIGNALS);
      const id = `${p.def.scope}\u0000${parsed.data.field}\u0000${signalsKeyOf(enabled)}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ field: parsed.data.field, enabled, scope: p.def.scope });
    }
  }
  return out;
}

/**
 * Scores in the worker the long texts of `i` that `specs` will read. Resolves, once every score is in (or the worker
 * gave up), to the function that takes the scores back after the check.
 */
export async function scoreAhead(
  i: Interaction,
  specs: readonly AheadSpec[],
  scorer: () => Scorer | undefined = sharedScorer,
  onInPlace?: (texts: number, why: unknown) => void,
): Promise<() => void> {
  const channel = channelOf(i.kind);
  const jobs: Array<{ text: string; enabled: ReadonlySet<InjectionSignal> }> = [];
  const asked = new Set<string>();
  for (const s of specs) {
    if (!scopeCovers(s.scope, i.kind)) continue;
    const key = signalsKeyOf(s.enabled);
    for (const f of inspectedFields(i, s.field)) {
      const id = `${key}\u0000${f.field}`;
      if (f.text.length < AHEAD_MIN_CHARS || asked.has(id)) continue;
      asked.add(id);
      jobs.push({ text: f.text, enabled: s.enabled });
    }
  }
  if (jobs.length === 0) return () => {};
  const worker = scorer();
  if (!worker) {
    onInPlace?.(jobs.length, 'the scoring worker failed less than a minute ago and is not started again yet');
    return () => {};
  }
  const results = await Promise.all(jobs.map((j) => worker.score(j.text, j.enabled, channel)));
  const missed = results.filter((r) => r === undefined).length;
  if (missed > 0) onInPlace?.(missed, worker.failure ?? 'the scoring worker stopped');
  const releases = jobs.flatMap((j, k) => {
    const result = results[k];
    return result ? [provideScore(j.text, j.enabled, channel, result)] : [];
  });
  return () => {
    for (const r of releases) r();
  };
}

/** A worker thread that scores texts, one at a time, in the order asked. */
export interface Scorer {
  /** False once the worker failed, stopped when idle, or was closed: every later score is undefined. */
  readonly alive: boolean;
  /** True when it stopped because it was idle (not a failure: another may start at once). */
  readonly idleStopped?: boolean;
  /** Why it failed (the worker's error, or its exit code), once it has. */
  readonly failure?: unknown;
  /** The score of `text`, or undefined when the worker is not there (the caller then scores in place). */
  score(text: string, enabled: ReadonlySet<InjectionSignal>, channel: InjectionChannel): Promise<InjectionScore | undefined>;
  close(): Promise<void>;
}

/**
 * The worker, a CommonJS script (`eval`) that imports the scorer's module: from `dist/` as it is, from the sources
 * (tests, benches) through tsx's `tsImport`.
 */
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const load = workerData.tsx ? import(workerData.tsx).then((t) => t.tsImport(workerData.url, workerData.url)) : import(workerData.url);
load.then(({ scoreInjection }) => {
  parentPort.on('message', ({ id, text, signals, channel }) => {
    let result;
    try { result = scoreInjection(text, new Set(signals), 0, channel); } catch { result = undefined; }
    parentPort.postMessage({ id, result });
  });
});
`;

/**
 * The scorer's module for code at `here` (this module's URL): `index` beside this file in the sources and in tsc's
 * `dist/src/`; in the CLI bundle (`scripts/bundle.ts`), where this code sits in a chunk of `dist/cli/`, the bundle's
 * `injection-scorer.js` entry beside that chunk.
 */
export function scorerModuleUrl(here: string = import.meta.url): string {
  const own = /\/ahead\.(ts|js)$/.exec(here);
  return own ? `${here.slice(0, own.index)}/index.${own[1]}` : new URL('./injection-scorer.js', here).href;
}

/** Starts a scorer on the module at `url` (default: the scorer's own module, `scorerModuleUrl`). */
export function startScorer(url = scorerModuleUrl()): Scorer {
  let tsx: string | undefined;
  if (url.endsWith('.ts')) {
    try {
      tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api')).href.replace(/\.cjs$/, '.mjs');
    } catch {
      tsx = undefined;
    }
  }
  const pending = new Map<number, (r: InjectionScore | undefined) => void>();
  let seq = 0;
  let alive = true;
  let idleStopped = false;
  let failure: unknown;
  let closing = false;
  // No inherited flags: `--input-type=module` on the parent would make this script a module without `require`.
  const worker = new Worker(WORKER_SOURCE, { eval: true, execArgv: [], workerData: { url, tsx } });
  worker.unref();
  const giveUp = () => {
    alive = false;
    for (const done of pending.values()) done(undefined);
    pending.clear();
  };
  // An idle worker is let go after a moment: a loaded module loader in it can keep the process from exiting.
  let idle: NodeJS.Timeout | undefined;
  worker.on('message', (m: { id: number; result?: InjectionScore }) => {
    const done = pending.get(m.id);
    pending.delete(m.id);
    done?.(m.result);
    if (pending.size === 0) {
      idle = setTimeout(() => {
        alive = false;
        idleStopped = true;
        void worker.terminate();
      }, IDLE_MS);
      idle.unref();
    }
  });
  worker.once('error', (err) => {
    failure ??= err;
    giveUp();
  });
  worker.once('exit', (code) => {
    if (!idleStopped && !closing) failure ??= `the scoring worker exited with code ${code}`;
    giveUp();
  });
  return {
    get alive() {
      return alive;
    },
    get idleStopped() {
      return idleStopped;
    },
    get failure() {
      return failure;
    },
    score(text, enabled, channel) {
      if (!alive) return Promise.resolve(undefined);
      const id = ++seq;
      clearTimeout(idle);
      return new Promise((done) => {
        pending.set(id, done);
        worker.postMessage({ id, text, signals: [...enabled], channel });
      });
    },
    async close() {
      closing = true;
      giveUp();
      await worker.terminate();
    },
  };
}

let shared: Scorer | undefined;
let lastStart = 0;
/** A worker that failed is started again at most this often (ms). */
const RESTART_MS = 60_000;
/** An idle worker stops after this long (ms); the next long text starts another. */
const IDLE_MS = 1000;

/** One scorer for the process, started on first use; undefined while a failed one may not be started again yet. */
function sharedScorer(): Scorer | undefined {
  if (shared?.alive) return shared;
  if (shared && !shared.idleStopped && Date.now() - lastStart < RESTART_MS) return undefined;
  lastStart = Date.now();
  shared = startScorer();
  return shared;
}
