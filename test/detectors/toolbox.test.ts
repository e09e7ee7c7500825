import { describe, expect, it } from 'vitest';
import { compileDetector, detectorTypes } from '../../src/detectors/index.js';
import { DetectorConfigError } from '../../src/core/errors.js';
import { call } from './helpers.js';

const SPECS: Array<{ type: string } & Record<string, unknown>> = [
  { type: 'regex', pattern: 'x' },
  { type: 'keywords', words: ['x'] },
  { type: 'tool', match: ['fs__*'] },
  { type: 'path', field: 'arguments.path', under: ['/tmp'] },
  { type: 'url_domain', deny: ['evil.com'] },
  { type: 'secrets' },
  { type: 'pii' },
  { type: 'shell_risk' },
  { type: 'profile', expr: 'profile.age >= 18' },
];

describe('generic toolbox registration', () => {
  it('registers every generic type through the index', () => {
    expect(detectorTypes()).toEqual(expect.arrayContaining(SPECS.map((s) => s.type)));
  });
  it.each(SPECS)('compiles $type to a function named after the type, answering a Truth', (spec) => {
    const d = compileDetector(spec, { path: 'p' });
    expect(d.name).toBe(spec.type);
    expect(['true', 'false', 'unknown']).toContain(d(call({ path: '/tmp/x', command: 'ls' })).value);
  });
  it('rejects unknown option keys for every generic type (strict schemas)', () => {
    for (const spec of SPECS) {
      expect(() => compileDetector({ ...spec, bogus: 1 }, { path: 'p' })).toThrow(DetectorConfigError);
    }
  });
});
