import { describe, expect, it } from 'vitest';
import '../../src/detectors/regex.js';
import { BIG, call, compile, configError, interaction, PAST_CAP, scan } from './helpers.js';

describe('regex detector', () => {
  it('matches selected text and reports spans', () => {
    const r = scan({ type: 'regex', pattern: 'DROP\\s+TABLE', flags: 'i' }, 'ok; drop   table users; DROP TABLE x');
    expect(r.value).toBe('true');
    expect(r.spans).toEqual([
      { field: 'content', start: 4, end: 16 },
      { field: 'content', start: 24, end: 34 },
    ]);
  });
  it('is false without a match and false when the field is absent', () => {
    expect(scan({ type: 'regex', pattern: 'DROP' }, 'select 1').value).toBe('false');
    expect(compile({ type: 'regex', pattern: 'x', field: 'arguments.query' })(call({ other: 'x' })).value).toBe('false');
    expect(compile({ type: 'regex', pattern: 'x', field: 'content' })(interaction()).value).toBe('false');
  });
  it('selects one argument by path', () => {
    const d = compile({ type: 'regex', pattern: '^/etc/', field: 'arguments.path' });
    expect(d(call({ path: '/etc/passwd' })).value).toBe('true');
    expect(d(call({ path: '/home/x', note: '/etc/passwd' })).value).toBe('false');
  });
  it('masks the match in evidence', () => {
    const r = scan({ type: 'regex', pattern: 'sk-[A-Za-z0-9]+' }, 'key sk-abcdefghijklmnop123');
    expect(r.evidence).toContain('sk-a…');
    expect(r.evidence).not.toContain('sk-abcdefghijklmnop123');
  });
  it('rejects bad patterns, flags and fields at compile time', () => {
    expect(configError({ type: 'regex', pattern: '(' }).message).toMatch(/does not compile/);
    expect(configError({ type: 'regex', pattern: 'a', flags: 'g' }).message).toMatch(/flags may contain only/);
    expect(configError({ type: 'regex', pattern: 'a', flags: 'ii' }).message).toMatch(/repeat a flag/);
    expect(configError({ type: 'regex', pattern: 'a', field: 'argumentz' }).message).toMatch(/unknown field selector/);
    expect(configError({ type: 'regex', pattern: 'a', extra: 1 }).code).toBe('detector_invalid_options');
  });
  it('reads a 5 MB argument to its end; past the 16 MiB inspected, nothing found is unknown', () => {
    const d = compile({ type: 'regex', pattern: 'NEEDLE' });
    expect(d(call({ blob: `${BIG}NEEDLE` })).value).toBe('true');
    expect(d(call({ blob: `${PAST_CAP}NEEDLE` })).value).toBe('unknown');
    expect(d(call({ blob: BIG })).value).toBe('false');
    expect(d(call({ blob: `NEEDLE${BIG}` })).value).toBe('true');
  });
});
