import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import '../../src/detectors/path-name.js';
import { call, compile, configError, interaction } from './helpers.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-path-name-')));
mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
mkdirSync(join(dir, 'box'));
writeFileSync(join(dir, 'home', '.ssh', 'id_rsa'), 'key');
symlinkSync(join(dir, 'home', '.ssh', 'id_rsa'), join(dir, 'box', 'notes.txt'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec = { type: 'path_name', match: ['**/.ssh/id_*', '/etc/shadow', '**/.env', '**/.env.*'], except: ['**/*.pub', '**/.env.example'] };

describe('path_name', () => {
  const det = compile(spec);
  it('matches a listed name as written, relative against the roots, through a link, and in a resource URI', () => {
    expect(det(call({ path: '/etc/shadow' })).value).toBe('true');
    expect(det(call({ path: '~/.ssh/id_ed25519' })).value).toBe('true');
    expect(det(call({ files: ['/srv/a.txt', '/srv/app/.env.local'] })).value).toBe('true');
    expect(det(call({ path: '.env' }, { roots: ['/srv/app'] })).value).toBe('true');
    const linked = det(call({ path: join(dir, 'box', 'notes.txt') }));
    expect(linked.value).toBe('true');
    expect(linked.evidence).toContain('.ssh/id_rsa');
    expect(det(interaction({ kind: 'resource_request', uri: `file://${join(dir, 'home', '.ssh', 'id_rsa')}` })).value).toBe('true');
  });

  it('leaves excepted names, other files, content that mentions a name, and malformed paths alone', () => {
    for (const path of ['/srv/app/.env.example', '/home/me/.ssh/id_rsa.pub', '/etc/hosts', '/srv/app/env.ts']) expect(det(call({ path })).value, path).toBe('false');
    expect(det(call({ path: '/srv/app/README.md', content: 'copy .env.example to .env; never ~/.ssh/id_rsa' })).value).toBe('false');
    expect(det(call({ path: '/etc/sha%64ow' })).value).toBe('false');
  });

  it('reads only the field it is given', () => {
    expect(compile({ ...spec, field: 'uri' })(call({ path: '/etc/shadow' })).value).toBe('false');
    expect(compile({ ...spec, field: 'arguments' })(interaction({ kind: 'resource_request', uri: 'file:///etc/shadow' })).value).toBe('false');
  });

  it('refuses a detector that lists no glob', () => {
    expect(configError({ type: 'path_name', match: [] }).code).toBe('detector_invalid_options');
  });
});
