/**
 * A progress indicator for long evaluation runs, written to stderr (stdout carries the results table).
 * On a terminal it redraws one bar in place (throttled); elsewhere (CI logs, files) it prints one line each time
 * another ~10% of the cases is done, so logs stay short. `quiet` turns it off.
 */

/** The part of a stream the indicator needs; `process.stderr` fits. */
export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressOptions {
  total: number;
  stream: ProgressStream;
  quiet?: boolean;
  /** Defaults to `stream.isTTY`. */
  tty?: boolean;
  /** What is counted (`cases`). */
  unit?: string;
  /** Clock for throttling and the ETA; replaceable in tests. */
  now?: () => number;
}

export interface Progress {
  /** `done` items of `total` are finished; `failures` is shown beside the count (e.g. misclassified so far). */
  update(done: number, failures?: number): void;
  /** Ends the bar (final redraw and newline on a terminal). */
  finish(): void;
}

const BAR_WIDTH = 28;
const REDRAW_MS = 80;

/**
 * @example
 * const p = createProgress({ total: cases.length, stream: process.stderr, quiet: opts.quiet });
 * await runEval(cases, { guardFor, onProgress: (done) => p.update(done) });
 * p.finish();
 */
export function createProgress(options: ProgressOptions): Progress {
  const { total, stream, quiet = false, unit = 'cases', now = () => Date.now() } = options;
  const tty = options.tty ?? stream.isTTY === true;
  if (quiet || total === 0) return { update() {}, finish() {} };
  const started = now();
  let lastDraw = -Infinity;
  let lastDecile = 0;
  let done = 0;
  let failures = 0;
  let finished = false;

  const line = (): string => {
    const frac = Math.min(1, done / total);
    const filled = Math.round(frac * BAR_WIDTH);
    const elapsed = now() - started;
    const eta = done > 0 && done < total ? ` eta ${formatDuration((elapsed / done) * (total - done))}` : '';
    const wrong = failures > 0 ? ` · ${failures} wrong` : '';
    return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${String(Math.floor(frac * 100)).padStart(3)}% ${done}/${total} ${unit}${wrong}${eta}`;
  };

  return {
    update(d, f = failures) {
      done = d;
      failures = f;
      if (tty) {
        const t = now();
        if (t - lastDraw < REDRAW_MS && done < total) return;
        lastDraw = t;
        stream.write(`\r${line()}\x1b[K`);
        return;
      }
      // One line per crossed tenth (and always at 100%).
      const decile = Math.floor((done * 10) / total);
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`eval: ${done}/${total} ${unit} (${Math.floor((done * 100) / total)}%)${failures ? `, ${failures} wrong` : ''}\n`);
      }
    },
    finish() {
      if (finished) return;
      finished = true;
      // Nothing drawn yet (the run failed before its first case): leave the terminal alone.
      if (tty && lastDraw !== -Infinity) stream.write(`\r${line()}\x1b[K\n`);
    },
  };
}

/** `75_000` → `1m15s`; `4_200` → `4s`. */
export function formatDuration(msValue: number): string {
  const s = Math.round(msValue / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
