import { describe, expect, it } from 'vitest';
import { createProgress, formatDuration } from '../../src/eval/progress.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, stream: { isTTY, write: (s: string) => chunks.push(s) } };
}

describe('createProgress', () => {
  it('prints one line per tenth when stderr is not a terminal', () => {
    const { chunks, stream } = sink(false);
    const p = createProgress({ total: 40, stream });
    for (let d = 1; d <= 40; d++) p.update(d, d >= 30 ? 2 : 0);
    p.finish();
    expect(chunks).toHaveLength(10);
    expect(chunks[0]).toBe('eval: 4/40 cases (10%)\n');
    expect(chunks[9]).toBe('eval: 40/40 cases (100%), 2 wrong\n');
    expect(chunks.every((c) => !c.includes('\r'))).toBe(true);
  });

  it('prints each crossed tenth once even for small totals', () => {
    const { chunks, stream } = sink(false);
    const p = createProgress({ total: 3, stream });
    p.update(1);
    p.update(2);
    p.update(3);
    expect(chunks).toEqual(['eval: 1/3 cases (33%)\n', 'eval: 2/3 cases (66%)\n', 'eval: 3/3 cases (100%)\n']);
  });

  it('redraws one bar in place on a terminal, throttled, and ends it with a newline', () => {
    const { chunks, stream } = sink(true);
    let t = 0;
    const p = createProgress({ total: 4, stream, now: () => t });
    p.update(1);
    t = 10;
    p.update(2); // within the redraw interval: skipped
    t = 1000;
    p.update(3, 1);
    t = 1010;
    p.update(4, 1); // the last one is always drawn
    p.finish();
    expect(chunks).toHaveLength(4);
    expect(chunks.every((c) => c.startsWith('\r'))).toBe(true);
    expect(chunks[0]).toContain(' 25% 1/4 cases');
    // 3 done in 1 s → 1 left ≈ 0.33 s
    expect(chunks[1]).toContain(' 75% 3/4 cases · 1 wrong eta 0s');
    expect(chunks[2]).toContain('100% 4/4 cases · 1 wrong');
    expect(chunks[2]).toContain('█'.repeat(28));
    expect(chunks[3]!.endsWith('\n')).toBe(true);
  });

  it('leaves the terminal alone when finished before any update', () => {
    const { chunks, stream } = sink(true);
    createProgress({ total: 5, stream }).finish();
    expect(chunks).toEqual([]);
  });

  it('writes nothing when quiet', () => {
    for (const tty of [true, false]) {
      const { chunks, stream } = sink(tty);
      const p = createProgress({ total: 10, stream, quiet: true });
      for (let d = 1; d <= 10; d++) p.update(d);
      p.finish();
      expect(chunks).toEqual([]);
    }
  });
});

describe('formatDuration', () => {
  it('formats seconds and minutes', () => {
    expect(formatDuration(4_200)).toBe('4s');
    expect(formatDuration(75_000)).toBe('1m15s');
  });
});
