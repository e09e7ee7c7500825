/**
 * A probe a bench loads into a process it starts (`node --import ./bench/loop-probe.mjs …`, via NODE_OPTIONS) to see
 * where a latency tail comes from: the event loop's delay (`monitorEventLoopDelay`, 1 ms resolution) and the
 * garbage collector's pauses (PerformanceObserver 'gc'). On each SIGUSR2 it appends one JSON line with the figures
 * since the last signal to the file named by QG_LOOP_PROBE, and starts again. Nothing of it is in the product.
 */
/* global process */
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';

const out = process.env.QG_LOOP_PROBE;
if (out) {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let gc = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gc.push(e.duration);
  }).observe({ entryTypes: ['gc'] });
  let since = process.cpuUsage();
  const ms = (ns) => Math.round(ns / 1e4) / 100;
  process.on('SIGUSR2', () => {
    const cpu = process.cpuUsage(since);
    gc.sort((a, b) => a - b);
    const line = {
      pid: process.pid,
      loop: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max), samples: loop.count },
      gc: { count: gc.length, totalMs: Math.round(gc.reduce((a, b) => a + b, 0)), p99Ms: Math.round((gc[Math.floor(gc.length * 0.99)] ?? 0) * 10) / 10, maxMs: Math.round((gc.at(-1) ?? 0) * 10) / 10 },
      cpuMs: Math.round((cpu.user + cpu.system) / 1000),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    loop.reset();
    gc = [];
    since = process.cpuUsage();
  });
}
