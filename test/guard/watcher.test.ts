import { describe, expect, it } from 'vitest';
import { ThreatWatcher, type ThreatEvidence } from '../../src/guard/watcher.js';
import { openStore } from '../../src/store/db.js';

/** The watcher as the pipeline uses it: the rate from the store's burst window, then `score`. */
function watch(w: ThreatWatcher) {
  const state = openStore(':memory:').state;
  return async (agent: string, tau: number, evidence: ThreatEvidence) =>
    w.score(tau, evidence, await state.countRequest(agent, evidence.now, w.options.burst_window_ms, evidence.counts ?? true));
}

/** Drives the watcher as the pipeline does: one update per interaction, τ carried over. */
async function drive(w: ThreatWatcher, agent: string, perSecond: number, seconds: number, withResults: boolean): Promise<number> {
  const update = watch(w);
  let tau = 0;
  let maxLevel = 0;
  const step = 1000 / perSecond;
  for (let t = 0; t < seconds * 1000; t += step) {
    const call = await update(agent, tau, { violations: [], injectionScore: 0, now: t });
    tau = call.tau;
    maxLevel = Math.max(maxLevel, call.level);
    if (withResults) {
      const res = await update(agent, tau, { violations: [], injectionScore: 0, now: t + 1, counts: false });
      tau = res.tau;
      maxLevel = Math.max(maxLevel, res.level);
    }
  }
  return maxLevel;
}

describe('threat watcher burst analysis', () => {
  it('leaves a coding agent at 10 calls a second for a minute at level 0 (call and result count once)', async () => {
    expect(await drive(new ThreatWatcher(), 'coder', 10, 60, true)).toBe(0);
  });
  it('never raises the level for rate alone: a flood of 200 calls a second for a minute stays at level 0, flagged as a burst', async () => {
    expect(await drive(new ThreatWatcher(), 'flooder', 200, 60, true)).toBe(0);
    const update = watch(new ThreatWatcher({ burst_threshold: 10 }));
    let last = await update('f', 0, { violations: [], injectionScore: 0, now: 0 });
    for (let t = 1; t <= 20; t++) last = await update('f', 0, { violations: [], injectionScore: 0, now: t });
    expect(last).toMatchObject({ burst: true, level: 0, tau: 0 });
  });
  it('still raises the level on threat evidence (violations, injections)', () => {
    const w = new ThreatWatcher();
    let tau = 0;
    for (let i = 0; i < 10; i++) tau = w.score(tau, { violations: ['critical'], injectionScore: 0, now: i }, 1).tau;
    expect(w.score(tau, { violations: [], injectionScore: 0.9, now: 11 }, 1).level).toBe(4);
  });
  it('does not count a result as a request', async () => {
    const update = watch(new ThreatWatcher());
    await update('a', 0, { violations: [], injectionScore: 0, now: 0 });
    const r = await update('a', 0, { violations: [], injectionScore: 0, now: 1, counts: false });
    expect(r.rate).toBe(1);
  });
});
