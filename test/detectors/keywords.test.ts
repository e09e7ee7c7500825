import { describe, expect, it } from 'vitest';
import '../../src/detectors/keywords.js';
import { BIG, call, compile, configError, PAST_CAP, scan } from './helpers.js';

describe('keywords detector', () => {
  it('finds words case-insensitively at word boundaries', () => {
    const r = scan({ type: 'keywords', words: ['password', 'wire transfer'] }, 'Please make a Wire\n  Transfer today');
    expect(r.value).toBe('true');
    expect(r.evidence).toContain('"wire transfer"');
    expect(r.spans?.[0]).toEqual({ field: 'content', start: 14, end: 29 });
  });
  it('respects word boundaries unless disabled', () => {
    expect(scan({ type: 'keywords', words: ['rm'] }, 'format the disk').value).toBe('false');
    expect(scan({ type: 'keywords', words: ['rm'], word_boundary: false }, 'format the disk').value).toBe('true');
    expect(scan({ type: 'keywords', words: ['café'] }, 'un cafés').value).toBe('false');
    expect(scan({ type: 'keywords', words: ['café'] }, 'un café!').value).toBe('true');
  });
  it('honours case_sensitive', () => {
    expect(scan({ type: 'keywords', words: ['SECRET'], case_sensitive: true }, 'a secret').value).toBe('false');
    expect(scan({ type: 'keywords', words: ['SECRET'], case_sensitive: true }, 'a SECRET').value).toBe('true');
  });
  it('match all and min count distinct words', () => {
    const all = { type: 'keywords', words: ['patient', 'diagnosis'], match: 'all' };
    expect(scan(all, 'patient record').value).toBe('false');
    expect(scan(all, 'patient diagnosis').value).toBe('true');
    const two = { type: 'keywords', words: ['a1', 'b2', 'c3'], min: 2 };
    expect(scan(two, 'a1 a1 a1').value).toBe('false');
    expect(scan(two, 'a1 c3').value).toBe('true');
  });
  it('treats regex characters in words literally', () => {
    expect(scan({ type: 'keywords', words: ['c++'], word_boundary: false }, 'I like c++').value).toBe('true');
    expect(scan({ type: 'keywords', words: ['a.b'] }, 'axb').value).toBe('false');
  });
  it('is false when the field is absent', () => {
    expect(compile({ type: 'keywords', words: ['x'], field: 'content' })(call({ a: 'x' })).value).toBe('false');
  });
  it('rejects inconsistent options', () => {
    expect(configError({ type: 'keywords', words: [] }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'keywords', words: ['a'], min: 2 }).message).toMatch(/min 2 exceeds/);
    expect(configError({ type: 'keywords', words: ['a', 'b'], match: 'all', min: 1 }).message).toMatch(/min applies only/);
    expect(configError({ type: 'keywords', words: ['  '] }).code).toBe('detector_invalid_options');
  });
  it('reads 5 MB to its end, and answers unknown past the 16 MiB it inspects', () => {
    expect(compile({ type: 'keywords', words: ['zebra'] })(call({ big: `${BIG} zebra` })).value).toBe('true');
    expect(compile({ type: 'keywords', words: ['zebra'] })(call({ big: `${PAST_CAP} zebra` })).value).toBe('unknown');
  });
});
