import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    expect(underEtc(call({ path: 'a\0b' })).value).toBe('unknown');
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

  it('denies malformed paths with outside: true (NUL, drive letters, backslashes, percent-encoding, remote file://)', () => {
    for (const bad of ['/workspace/a\0/../../etc', 'C:\\Windows\\system32', '/workspace\\..\\..\\etc', '/workspace/%2e%2e/etc/passwd', 'file://evil.com/workspace/x', 'file:///workspace/%00x']) {
      const r = outsideWs(call({ path: bad }));
      expect(r.value, bad).toBe('true');
      expect(r.evidence).toMatch(/malformed/);
    }
  });
  it('with field arguments, reads every path-like argument by shape', () => {
    const d = compile({ type: 'path', field: 'arguments', under: ['/workspace'], outside: true });
    expect(d(call({ source: '/etc/passwd', destination: '/workspace/x' })).value).toBe('true');
    expect(d(call({ source: '/workspace/a', destination: '/workspace/b' })).value).toBe('false');
    expect(d(call({ files: ['/workspace/a', '/root/.ssh/id_rsa'] })).value).toBe('true');
    expect(d(call({ opts: { targetDir: '/var/lib' } })).value).toBe('true');
    expect(d(call({ anything: 'file:///etc/shadow' })).value).toBe('true');
    expect(d(call({ id: 42, reason: 'cleanup' })).value).toBe('false');
    expect(d(call({ path: 'victim.txt' })).value).toBe('unknown');
  });
  it('resolves relative paths against every root the interaction names', () => {
    const d = compile({ type: 'path', field: 'arguments', under: ['/workspace'], outside: true });
    expect(d(interaction({ kind: 'tool_call', tool: 'rm', arguments: { path: 'victim.txt' }, roots: ['/srv/data'] })).value).toBe('true');
    expect(d(interaction({ kind: 'tool_call', tool: 'rm', arguments: { path: './sub/x' }, roots: ['/workspace/p'] })).value).toBe('false');
    expect(d(interaction({ kind: 'tool_call', tool: 'rm', arguments: { path: 'x' }, roots: ['/workspace/p', '/home/u'] })).value).toBe('true');
  });
  it('follows symbolic links of local paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'qg-path-'));
    const box = join(dir, 'box');
    mkdirSync(box);
    mkdirSync(join(dir, 'outside'));
    symlinkSync(join(dir, 'outside'), join(box, 'link'));
    const d = compile({ type: 'path', field: 'arguments', under: [box], outside: true });
    expect(d(call({ path: join(box, 'file.txt') })).value).toBe('false');
    expect(d(call({ path: join(box, 'link', 'victim.txt') })).value).toBe('true');
    expect(d(call({ path: join(box, 'link', 'not', 'yet', 'there') })).value).toBe('true');
    rmSync(dir, { recursive: true, force: true });
  });
  it('resolves a link before the .. that follows it, as the kernel walks a path (a server that opens the path as given)', () => {
    // box/link -> ../outside/dir: lexically box/link/../x is box/x (inside), but open(2) goes to outside/x.
    const dir = mkdtempSync(join(tmpdir(), 'qg-path-dots-'));
    const box = join(dir, 'box');
    mkdirSync(join(box, 'sub'), { recursive: true });
    mkdirSync(join(dir, 'outside', 'dir'), { recursive: true });
    symlinkSync(join(dir, 'outside', 'dir'), join(box, 'link'));
    symlinkSync('../outside/dir', join(box, 'rel-link'));
    const d = compile({ type: 'path', field: 'arguments', under: [box], outside: true });
    const inBox = compile({ type: 'path', field: 'arguments', under: [join(dir, 'outside')] });
    for (const path of [`${box}/link/../secret.txt`, `${box}/rel-link/../secret.txt`, `${box}/link/../../outside/x`, `file://${box}/link/%2E%2E/secret.txt`]) {
      const r = d(call({ path }));
      expect(r.value, path).toBe('true');
      expect(r.evidence, path).toContain(join(dir, 'outside', 'secret.txt').slice(0, -10));
      expect(inBox(call({ path })).value, path).toBe('true');
    }
    // Relative, against the server's root.
    expect(d(interaction({ kind: 'tool_call', tool: 'write', arguments: { path: 'link/../secret.txt' }, roots: [box] })).value).toBe('true');
    // Controls: .. that does not follow a link stays inside; a path without .. is unchanged.
    expect(d(call({ path: `${box}/sub/../notes.txt` })).value).toBe('false');
    expect(d(interaction({ kind: 'tool_call', tool: 'write', arguments: { path: 'sub/../notes.txt' }, roots: [box] })).value).toBe('false');
    rmSync(dir, { recursive: true, force: true });
  });
});
