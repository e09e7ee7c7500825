/**
 * Helpers shared by the benchmarks: quantiles, timed loops bounded in time, RSS of a process, spawning a CLI from
 * the sources, and the synthetic policy books of pipeline-scaling.ts. Loopback only; nothing here outlives a run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI_ENTRY } from '../src/core/version.js';
import type { PolicyBookInput } from '../src/policy/index.js';
import { perRequestSignalFetch } from '../src/proxy/request-signal.js';
export { freePort } from '../test/support/free-port.js';

export const ROOT = resolve(import.meta.dirname, '..');

/** Runs a TypeScript entry point of the repository in a child node (tsx loader), as the CLI would run built. */
export const tsNode = (file: string, ...args: string[]): { command: string; args: string[]; cwd: string } => ({
  command: process.execPath,
  args: ['--import', 'tsx', resolve(ROOT, file), ...args],
  // `--import tsx` resolves from the working directory, and a config's servers run in the config's folder unless
  // they name one: run them from the repository.
  cwd: ROOT,
});

/** The built `quadguard` (package.json `bin`, the esbuild bundle), as users run it; `npm run build` first. */
export function builtCli(...args: string[]): { command: string; args: string[]; cwd: string } {
  if (!existsSync(CLI_ENTRY)) throw new Error(`${CLI_ENTRY} is missing: run \`npm run build\` before this bench`);
  return { command: process.execPath, args: [CLI_ENTRY, ...args], cwd: ROOT };
}

/**
 * The benches' Streamable HTTP client. Each request gets its own abort signal, as the proxy's own downstream client
 * does: with the SDK's one shared signal, Node's fetch piles a listener per request on it and, past 1,500, prints a
 * warning on every call, which slowed the client (the same for every front end) and blurred the ratios.
 */
export const httpClient = (url: URL): StreamableHTTPClientTransport => new StreamableHTTPClientTransport(url, { fetch: perRequestSignalFetch() });

/** Summary of a latency sample in milliseconds. */
export interface Summary {
  n: number;
  median: number;
  p90: number;
  p99: number;
}

/** q-quantile of an ascending sample (nearest rank). */
export function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

export function summarize(ms: number[]): Summary {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, median: quantile(s, 0.5), p90: quantile(s, 0.9), p99: quantile(s, 0.99) };
}

/**
 * The median of an ascending sample and its 95% confidence interval from the sign test's order statistics (the
 * binomial's normal approximation, fine from n ≈ 20): no assumption on the shape of the distribution.
 */
export function medianInterval(sorted: ArrayLike<number>): { median: number; lo: number; hi: number } {
  const n = sorted.length;
  // The r-th smallest and r-th largest (1-based ranks), r = ⌊(n − 1.96√n) / 2⌋.
  const r = Math.max(1, Math.floor((n - 1.96 * Math.sqrt(n)) / 2));
  const median = n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { median, lo: sorted[r - 1]!, hi: sorted[n - r]! };
}

/**
 * Times `fn` after `warmup` calls: at least `min` calls, then more until `budgetMs` has passed or `max` calls.
 * Milliseconds per call.
 */
export async function timed(fn: () => Promise<unknown>, o: { warmup: number; min: number; max: number; budgetMs: number }): Promise<number[]> {
  for (let i = 0; i < o.warmup; i++) await fn();
  const ms: number[] = [];
  const start = performance.now();
  while (ms.length < o.min || (ms.length < o.max && performance.now() - start < o.budgetMs)) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return ms;
}

export const fmtMs = (x: number): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(3));

/** `label  median … p90 … p99 … (n)` on one line. */
export function line(label: string, s: Summary, width = 34): string {
  return `${label.padEnd(width)} median ${fmtMs(s.median).padStart(7)} ms  p90 ${fmtMs(s.p90).padStart(7)} ms  p99 ${fmtMs(s.p99).padStart(7)} ms  (n=${s.n})`;
}

/** Resident set size of a process in MiB, from /proc/<pid>/status (Linux); NaN elsewhere. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Resolves when `url` answers any HTTP status, or rejects after `timeoutMs`. */
export async function waitForHttp(url: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(url, { method: 'GET', signal: AbortSignal.timeout(1000) });
      return;
    } catch {
      if (Date.now() > end) throw new Error(`${url} did not come up within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/**
 * `n` synthetic predicates and n/2 rules over them, the shape bench/policy-eval.ts uses (that file runs its
 * benchmark on import, so its generator cannot be imported): predicates alternate a `keywords` and a `regex`
 * detector over the arguments, each scoped to one distinct synthetic tool `svc<i>__*`; rule j is
 * `!(p<2j> & p<2j+1>)`.
 */
export function syntheticParts(n: number): Pick<PolicyBookInput, 'predicates' | 'rules'> {
  const predicates = Array.from({ length: n }, (_, i) => ({
    name: `p${i}`,
    description: `synthetic predicate ${i} about service ${i}`,
    keywords: [`alpha${i}`, `beta ${i}`],
    scope: 'action' as const,
    tools: [`svc${i}__*`],
    detectors: [
      i % 2 === 0
        ? { type: 'keywords', words: [`alpha${i}`, `beta ${i}`], field: 'arguments' }
        : { type: 'regex', pattern: `secret-${i}-[0-9a-f]{8}`, flags: 'i', field: 'arguments' },
    ],
  }));
  const rules = Array.from({ length: Math.floor(n / 2) }, (_, j) => ({
    id: `r${j}`,
    text: `synthetic rule ${j}`,
    applies_to: ['tool_call' as const],
    formula: `!(p${2 * j} & p${2 * j + 1})`,
    severity: 'high' as const,
    hard: j % 2 === 0,
  }));
  return { predicates, rules } as Pick<PolicyBookInput, 'predicates' | 'rules'>;
}

/** Lines of ordinary work text (prose, code, a table, SQL): no secrets, no injection, so every detector reads to the end. */
const MIXED_LINES = [
  'The quarterly review covers the harbour project, the kernel upgrade and the payroll migration for the finance team.',
  'function total(rows) { return rows.reduce((sum, r) => sum + r.amount, 0); } // sums the ledger column',
  '| region | quarter | revenue | margin |\n|---|---|---:|---:|\n| north | Q3 | 41,200 | 12.5% |',
  'Meeting notes: the vendor confirmed the delivery window; the warehouse team will schedule the forklifts next week.',
  'SELECT name, amount FROM invoices WHERE paid = 0 ORDER BY due_date; -- open invoices for the monthly report',
];

/**
 * A generator of `chars`-long texts of those lines (and `extra` ones) in a seeded random order, each line numbered
 * at random: the same texts on every run, a different text on every call.
 */
export function mixedText(extra: readonly string[] = []): (chars: number) => string {
  const lines = [...MIXED_LINES, ...extra];
  let seed = 7;
  const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  return (chars) => {
    const parts: string[] = [];
    let n = 0;
    while (n < chars) {
      const l = `${lines[Math.floor(rand() * lines.length)]!} ${Math.floor(rand() * 100000)}\n`;
      parts.push(l);
      n += l.length;
    }
    return parts.join('').slice(0, chars);
  };
}

/**
 * Closed-loop load in turns: each run's clients call in a loop for a slice of `sliceMs`, the runs one after another,
 * until each has had `seconds` of its own (a slow moment of the machine falls on all of them alike). Each call's
 * latency goes to `run.ms`; `each` makes one call and returns when it is answered.
 */
export async function takeTurns<R extends { clients: unknown[]; ms: number[]; elapsed: number }>(runs: R[], seconds: number, sliceMs: number, each: (r: R, c: R['clients'][number]) => Promise<void>): Promise<void> {
  while (runs.some((r) => r.elapsed < seconds * 1000)) {
    for (const r of runs) {
      if (r.elapsed >= seconds * 1000) continue;
      const t0 = performance.now();
      const end = t0 + Math.min(sliceMs, seconds * 1000 - r.elapsed);
      await Promise.all(
        r.clients.map(async (c) => {
          while (performance.now() < end) {
            const t = performance.now();
            await each(r, c);
            r.ms.push(performance.now() - t);
          }
        }),
      );
      r.elapsed += performance.now() - t0;
    }
  }
}
