/**
 * Large results: what it costs the guard to inspect a tool result of 1, 4 and 10 MB to its end (default book, every
 * detector the book names, data-flow recording of a private read, audit with its capped preview), in-process, one
 * `GuardPipeline.check` per size after a warm-up. 16 MiB is the most the detectors read; a larger result is withheld
 * as not inspectable (docs/inspection.md). Prints wall time, throughput (MB/s) and the growth of the heap and
 * of the RSS while checking, as a multiple of the input's size in memory (UTF-16: 2 bytes a character), the longest
 * stall of the event loop during the check (what other sessions of a proxy would wait: the check runs on the event
 * loop), and the time of the injection scorer alone on the same text. Then two cases beside them, in the same run:
 *
 * - a base64 result (`--base64-mb`, 1.3 MB by default: a text file read as base64, which the readings decode and
 *   read again) against a plain result of the same length: the whole check of each;
 * - an ordinary call of another session while a large result (`--busy-mb`, 8 MB by default) is checked: the call's
 *   latency during the check against its idle median (a ratio: how much one large result slows everyone else), and
 *   against the median of the same calls paced as during the check with nothing else running (each waits for a 5 ms
 *   timer, which fires up to a millisecond late, and finds the loop asleep: what the idle calls, one right after
 *   another, do not pay).
 *
 *   npx tsx bench/large-result.ts [--sizes 1,4,10] [--rounds 3] [--base64-mb 1.3] [--busy-mb 8] [--prof FILE] [--pool JSON]
 *
 * `--sizes ""` or `--base64-mb 0` leave that case out; `--prof FILE` writes a CPU profile of the main thread during
 * the other-session case, which also prints the event loop's delay histogram (`monitorEventLoopDelay`) over it;
 * `--pool JSON` gives the guard those `guard.pool` settings (e.g. `'{"read_ahead":true,"nice":10}'`).
 *
 * The text mixes prose, code and tables (no secrets, no injection), so every detector reads it all and the result
 * is allowed: a denial could stop at the first finding.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { InteractionSchema, type Interaction } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { scoreInjection } from '../src/detectors/injection/index.js';
import { mixedText, ROOT } from './common.js';

const { values } = parseArgs({
  options: { sizes: { type: 'string', default: '1,4,10' }, rounds: { type: 'string', default: '3' }, 'base64-mb': { type: 'string', default: '1.3' }, 'busy-mb': { type: 'string', default: '8' }, prof: { type: 'string' }, pool: { type: 'string' } },
});
const sizes = values.sizes.split(',').filter((x) => x.trim() !== '').map(Number);
const rounds = Number(values.rounds);

const text = mixedText();

/**
 * CPU time of the main thread (the event loop) so far, ms, from /proc (Linux; undefined elsewhere): unlike wall time
 * it does not move with the machine's load, and unlike process.cpuUsage() it leaves out the pool's workers.
 */
function loopCpuMs(): number | undefined {
  try {
    const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime, fields 14 and 15 of stat (here 11 and 12, after the pid and name), in clock ticks (100 Hz).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-large-'));
try {
  const guard = await buildGuard({
    policy: join(ROOT, 'policies', 'default'),
    store: join(dir, 'state.db'),
    settings: { watcher: { quarantine: false, burst_threshold: 1_000_000_000 }, ...(values.pool !== undefined ? { pool: JSON.parse(values.pool) as Record<string, unknown> } : {}) },
  });
  const result = (t: string): Interaction =>
    InteractionSchema.parse({ agent: 'bench', session: 's1', profile: {}, kind: 'tool_result', server: 'fs', tool: 'read_file', content: [{ type: 'text', text: t }] });
  // Warm-up on a small result, so the first size does not pay for compiling the detectors.
  for (let i = 0; i < 20; i++) await guard.pipeline.check(result(text(64 * 1024)));
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`node ${process.version}; default book, SQLite store with audit${values.pool !== undefined ? `, guard.pool ${values.pool}` : ''}; median of ${rounds} checks per size`);
  for (const mb of sizes) {
    // A little under the size, so the round label still leaves it within the size named.
    const t = text(mb * 1024 * 1024 - 256);
    const times: number[] = [];
    let heapGrowth = 0;
    let rssGrowth = 0;
    const stalls: number[] = [];
    const loopCpu: number[] = [];
    for (let r = 0; r < rounds; r++) {
      // Each round reads a different text: no cache (the injection score of the last text, a re-read not stored
      // again) can answer for a round before it.
      const i = result(`round ${r} of ${mb} MB, ${Date.now()}\n${t}`);
      (globalThis as { gc?: () => void }).gc?.();
      const heap0 = process.memoryUsage().heapUsed;
      const rss0 = process.memoryUsage().rss;
      let heapPeak = heap0;
      let rssPeak = rss0;
      // The longest the event loop went without running this 1 ms timer: how long other sessions would wait.
      let lastTick = performance.now();
      let stall = 0;
      const sampler = setInterval(() => {
        const now = performance.now();
        stall = Math.max(stall, now - lastTick);
        lastTick = now;
        const m = process.memoryUsage();
        heapPeak = Math.max(heapPeak, m.heapUsed);
        rssPeak = Math.max(rssPeak, m.rss);
      }, 1);
      const cpu0 = loopCpuMs();
      const t0 = performance.now();
      const d = await guard.pipeline.check(i);
      const t1 = performance.now();
      if (cpu0 !== undefined) loopCpu.push(loopCpuMs()! - cpu0);
      times.push(t1 - t0);
      clearInterval(sampler);
      stalls.push(Math.max(stall, t1 - lastTick));
      const m = process.memoryUsage();
      heapGrowth = Math.max(heapGrowth, Math.max(heapPeak, m.heapUsed) - heap0);
      rssGrowth = Math.max(rssGrowth, Math.max(rssPeak, m.rss) - rss0);
      if (d.decision !== 'allow') throw new Error(`${mb} MB result not allowed: ${d.rationale}`);
    }
    times.sort((a, b) => a - b);
    stalls.sort((a, b) => a - b);
    const ms = times[Math.floor(times.length / 2)]!;
    // The injection scorer alone on the same text (the largest detector cost of a result; see README.md).
    const injection: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      scoreInjection(`injection round ${r}\n${t}`);
      injection.push(performance.now() - t0);
    }
    injection.sort((a, b) => a - b);
    const inMem = t.length * 2;
    console.log(
      `${String(mb).padStart(3)} MB result: ${ms.toFixed(1).padStart(7)} ms  ${(mb / (ms / 1000)).toFixed(0).padStart(5)} MB/s  heap +${(heapGrowth / 2 ** 20).toFixed(0)} MiB (${(heapGrowth / inMem).toFixed(1)}× the text), rss +${(rssGrowth / 2 ** 20).toFixed(0)} MiB; event loop stalled ≤ ${stalls[Math.floor(stalls.length / 2)]!.toFixed(0)} ms; injection scorer alone ${injection[Math.floor(injection.length / 2)]!.toFixed(1)} ms; the event loop's own CPU ${loopCpu.length ? `${median(loopCpu).toFixed(0)} ms` : 'n/a'}`,
    );
  }

  const checkMs = async (i: Interaction): Promise<number> => {
    const t0 = performance.now();
    const d = await guard.pipeline.check(i);
    if (d.decision !== 'allow') throw new Error(`result not allowed: ${d.rationale}`);
    return performance.now() - t0;
  };

  // A base64 result: a text file of 3/4 the size, encoded (every byte of it is read again once decoded).
  const b64Chars = Math.round(Number(values['base64-mb']) * 1024 * 1024);
  const plainOfB64 = text(b64Chars);
  const encoded = Buffer.from(text(Math.floor((b64Chars * 3) / 4)), 'utf8').toString('base64').slice(0, b64Chars);
  const b64: number[] = [];
  const plain: number[] = [];
  for (let r = 0; r < (b64Chars > 0 ? rounds : 0); r++) {
    b64.push(await checkMs(result(`b64 round ${r} ${Date.now()}\n${encoded}`)));
    plain.push(await checkMs(result(`plain round ${r} ${Date.now()}\n${plainOfB64}`)));
  }
  if (b64Chars > 0) console.log(`${values['base64-mb']} MB base64 result: ${median(b64).toFixed(1)} ms whole check; a plain result of the same length ${median(plain).toFixed(1)} ms (+${(median(b64) - median(plain)).toFixed(1)} ms for the base64)`);

  // Another session's ordinary call, idle and while a large result is checked.
  const call = (n: number): Interaction =>
    InteractionSchema.parse({ agent: 'bench-2', session: 's2', profile: {}, kind: 'tool_call', server: 'fs', tool: 'read_file', arguments: { path: `/srv/ws/notes-${n}.txt` } });
  let n = 0;
  const timeCall = async (sentAt = performance.now()): Promise<number> => {
    await guard.pipeline.check(call(n++));
    return performance.now() - sentAt;
  };
  // One call after another, each sent 5 ms after the last answer, while `busy()` (its time counts from when it is
  // sent: see below).
  const paced = async (busy: () => boolean): Promise<number[]> => {
    const out: number[] = [];
    while (busy()) {
      const sentAt = performance.now() + 5;
      await new Promise((r) => setTimeout(r, 5));
      if (busy()) out.push(await timeCall(sentAt));
    }
    return out;
  };
  for (let k = 0; k < 20; k++) await timeCall();
  const idle: number[] = [];
  for (let k = 0; k < 60; k++) idle.push(await timeCall());
  // The same calls paced as during the check, nothing else running: a call that waits for its 5 ms timer is late by
  // up to a millisecond (libuv's timers count whole milliseconds) and finds the loop asleep, which the idle calls
  // above, one right after another, never pay.
  let pacedLeft = 60;
  const pacedIdle = await paced(() => pacedLeft-- > 0);
  const busyText = text(Math.round(Number(values['busy-mb']) * 1024 * 1024));
  // As a proxy gets it: parsed from the JSON of a message, so its text is one flat string (built by concatenation
  // here, its first reader would flatten it on the loop: a cost a proxy does not have).
  const busyResult = InteractionSchema.parse(JSON.parse(JSON.stringify(result(`busy ${Date.now()}\n${busyText}`))));
  const busy: number[] = [];
  let done = false;
  // The event loop's delay while the large result is checked (1 ms resolution): each sample is how late a timer ran.
  const loopDelay = monitorEventLoopDelay({ resolution: 1 });
  loopDelay.enable();
  // `--prof FILE`: a CPU profile of the main thread during that check only (summarise it with a .cpuprofile reader).
  const profiler = values.prof !== undefined ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
    await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.post('Profiler.start');
  }
  const busyCpu0 = loopCpuMs();
  const large = guard.pipeline.check(busyResult).finally(() => {
    done = true;
  });
  // One call after another, each sent 5 ms after the last answer, for as long as the large check runs. Its time counts
  // from when it is sent, not from when this loop gets to run again: a client outside the process sends it then, and
  // a call that arrives while the event loop is held waits for it.
  busy.push(...(await paced(() => !done)));
  loopDelay.disable();
  const busyCpu = busyCpu0 !== undefined ? loopCpuMs()! - busyCpu0 : undefined;
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(values.prof!, JSON.stringify(profile));
    profiler.disconnect();
  }
  const largeDecision = await large;
  if (largeDecision.decision !== 'allow') throw new Error(`busy result not allowed: ${largeDecision.rationale}`);
  const idleMedian = median(idle);
  const pacedMedian = median(pacedIdle);
  const busyMedian = busy.length ? median(busy) : NaN;
  const busyMax = busy.length ? Math.max(...busy) : NaN;
  console.log(
    `another session's call while a ${values['busy-mb']} MB result is checked: idle median ${idleMedian.toFixed(2)} ms; during the check median ${busyMedian.toFixed(2)} ms (${(busyMedian / idleMedian).toFixed(1)}× idle), max ${busyMax.toFixed(1)} ms (${(busyMax / idleMedian).toFixed(0)}× idle), ${busy.length} calls`,
  );
  console.log(`  the same calls paced as during the check, nothing else running: median ${pacedMedian.toFixed(2)} ms; during the check ${(busyMedian / pacedMedian).toFixed(1)}× that`);
  const ms = (ns: number): string => (ns / 1e6).toFixed(1);
  console.log(
    `  event loop delay during that check (monitorEventLoopDelay, 1 ms resolution): median ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms, ${loopDelay.count} samples; the event loop's own CPU over it ${busyCpu !== undefined ? `${busyCpu} ms (${(busyCpu / Math.max(1, busy.length)).toFixed(2)} ms per call of the other session)` : 'n/a'}`,
  );
  await guard.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
