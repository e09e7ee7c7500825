import { describe, expect, it } from 'vitest';
import '../../src/detectors/path.js';
import { BIG, call, compile, configError, interaction } from './helpers.js';

const underEtc = compile({ type: 'path', field: 'arguments.path', under: ['/etc', '~/.ssh'] });
const outsideWs = compile({ type: 'path', field: 'arguments.path', under: ['/workspace'], outside: true });

describe('path detector', () => {
  it('decides lexically whether a path lies under a directory', () => {
    expect(underEtc(call({ path: '/etc/passwd' })).value).toBe('true');
    expect(underEtc(call({ path: '/etc' })).value).toBe('true');
    expect(underEtc(call({ path: '/etc2/passwd' })).value).toBe('false');
    expect(underEtc(call({ path: '/tmp/../etc/./shadow' })).value).toBe('true');
    expect(underEtc(call({ path: '//etc//hosts' })).value).toBe('true');
    expect(underEtc(call({ path: '/../../etc/hosts' })).value).toBe('true');
    expect(underEtc(call({ path: '~/.ssh/id_rsa' })).value).toBe('true');
    expect(underEtc(call({ path: '/home/u/.ssh/id_rsa' })).value).toBe('false');
  });
  it('with outside: true flags escapes, including ~ and .. tricks', () => {
    expect(outsideWs(call({ path: '/workspace/src/a.ts' })).value).toBe('false');
    expect(outsideWs(call({ path: '/workspace/../etc/passwd' })).value).toBe('true');
    expect(outsideWs(call({ path: '~/notes' })).value).toBe('true');
    expect(outsideWs(call({ path: '/workspace-evil/x' })).value).toBe('true');
    expect(outsideWs(call({ path: 'file:///workspace/%2E%2E/etc/passwd' })).value).toBe('true');
  });
  it('handles arrays of paths', () => {
    expect(outsideWs(call({ path: ['/workspace/a', '/workspace/b'] })).value).toBe('false');
    const r = outsideWs(call({ path: ['/workspace/a', '/root/.bashrc'] }));
    expect(r.value).toBe('true');
    expect(r.evidence).toContain('/root/.bashrc');
  });
  it('is unknown when the field is missing, malformed, or relative without base', () => {
    expect(outsideWs(call({ other: '/x' })).value).toBe('unknown');
    expect(outsideWs(interaction({ kind: 'message', content: 'hi' })).value).toBe('unknown');
    expect(outsideWs(call({ path: 42 })).value).toBe('unknown');
    expect(outsideWs(call({ path: [] })).value).toBe('unknown');
    expect(outsideWs(call({ path: '' })).value).toBe('unknown');
    expect(outsideWs(call({ path: 'a\0b' })).value).toBe('unknown');
    expect(outsideWs(call({ path: 'src/a.ts' })).value).toBe('unknown');
    // a decisive path wins over an undecided one
    expect(outsideWs(call({ path: ['src/a.ts', '/etc/x'] })).value).toBe('true');
  });
  it('resolves relative paths against base', () => {
    const d = compile({ type: 'path', field: 'arguments.path', under: ['/workspace'], outside: true, base: '/workspace' });
    expect(d(call({ path: 'src/a.ts' })).value).toBe('false');
    expect(d(call({ path: '../etc/passwd' })).value).toBe('true');
  });
  it('reads the uri field', () => {
    const d = compile({ type: 'path', field: 'uri', under: ['/secrets'] });
    expect(d(interaction({ kind: 'resource_request', uri: 'file:///secrets/k.pem' })).value).toBe('true');
  });
  it('rejects relative under entries and a relative base', () => {
    expect(configError({ type: 'path', field: 'arguments.path', under: ['data'] }).message).toMatch(/absolute/);
    expect(configError({ type: 'path', field: 'arguments.path', under: ['/a'], base: 'x' }).message).toMatch(/base/);
    expect(configError({ type: 'path', under: ['/a'] }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'path', field: 'arguments.path', under: [] }).code).toBe('detector_invalid_options');
  });
  it('copes with a 5 MB path', () => {
    expect(outsideWs(call({ path: `/workspace/${BIG}` })).value).toBe('false');
  });
});
