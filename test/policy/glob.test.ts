import { describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/core/errors.js';
import { compileGlob } from '../../src/core/glob.js';

describe('compileGlob', () => {
  it.each([
    ['fs__*', 'fs__read_file', true],
    ['fs__*', 'fs__', true],
    ['fs__*', 'fsx__read', false],
    ['*', 'fs__read', false], // * does not cross the __ separator
    ['*', 'read_file', true], // ...but matches single underscores
    ['*__publish*', 'github__publish_release', true],
    ['*__publish*', 'github__create__publish', false],
    ['**publish*', 'github__create__publish', true],
    ['**', 'a__b__c', true],
    ['git?ub__*', 'github__x', true],
    ['{fs,files}__write_*', 'files__write_text', true],
    ['{fs,files}__write_*', 'disk__write_text', false],
    ['mail__send.v2', 'mail__send.v2', true],
    ['mail__send.v2', 'mail__sendXv2', false],
    ['Fs__*', 'fs__read', false],
  ] as const)('%s vs %s → %s', (glob, name, want) => {
    expect(compileGlob(glob)(name)).toBe(want);
  });

  it('matches any of several patterns', () => {
    const m = compileGlob(['a__*', 'b__x']);
    expect([m('a__q'), m('b__x'), m('b__y')]).toEqual([true, true, false]);
    expect(compileGlob([])('anything')).toBe(false);
  });

  it.each([
    ['', /empty pattern/],
    ['fs__***', /"\*\*\*"/],
    ['{a,b', /unclosed "\{"/],
    ['a}', /without "\{"/],
    ['{a,{b}}', /nested/],
    ['a,b', /outside braces/],
    ['fs__(x)', /character "\(" at 5/],
    ['fs__[ab]', /character "\["/],
  ])('rejects %j', (glob, msg) => {
    let caught: unknown;
    try {
      compileGlob(glob);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(PolicyError);
    expect((caught as PolicyError).code).toBe('policy_glob_error');
    expect((caught as PolicyError).message).toMatch(msg);
  });
});
