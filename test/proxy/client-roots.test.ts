import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientRoots, ROOTS_SETTLE_MS, rootDirectories } from '../../src/proxy/client-roots.js';

describe('rootDirectories: a client\'s roots as server-filesystem reads them', () => {
  it('decodes file:// URIs, expands ~, resolves plain and relative paths against the server cwd', () => {
    const dirs = rootDirectories(
      [{ uri: 'file:///srv/a%20b' }, { uri: '/srv/plain/' }, { uri: '~/proj' }, { uri: 'rel/dir' }, { uri: 'file:///srv/x/../y' }, { uri: '/srv/plain' }],
      '/work/cwd',
    );
    expect(dirs).toEqual(['/srv/a b', '/srv/plain', join(homedir(), 'proj'), '/work/cwd/rel/dir', '/srv/y']);
  });

  it('leaves out what names no local directory: other schemes, other hosts, NUL', () => {
    expect(rootDirectories([{ uri: 'https://example.com/x' }, { uri: 'file://evil.example/etc' }, { uri: 'file:///a%00b' }, { uri: '' }], '/c')).toEqual([]);
  });
});

describe('ClientRoots: what each server was told, and what may still change', () => {
  const clock = () => {
    let t = 1_000;
    return { now: () => t, advance: (ms: number) => (t += ms) };
  };

  it('knows nothing of a server that never asked, and ignores announcements for it', () => {
    const r = new ClientRoots();
    r.announced('fs', 's1', ['/a']);
    expect(r.candidates('fs')).toEqual([]);
    expect(r.askers()).toEqual([]);
  });

  it('a server that asked and got nothing is unanswered; an announcement is a candidate until it fetches', () => {
    const r = new ClientRoots();
    r.asked('fs');
    expect(r.unanswered()).toEqual(['fs']);
    r.announced('fs', 's1', ['/a', '/b']);
    expect(r.candidates('fs')).toEqual(['/a', '/b']);
    r.delivered('fs', 's1', ['/a', '/b']);
    expect(r.unanswered()).toEqual([]);
    expect(r.candidates('fs')).toEqual(['/a', '/b']);
  });

  it('while a change is pending, old and new roots are both candidates', () => {
    const c = clock();
    const r = new ClientRoots(c.now);
    r.asked('fs');
    r.delivered('fs', 's1', ['/old']);
    r.announced('fs', 's1', ['/new']);
    expect(r.candidates('fs')).toEqual(['/old', '/new']);
    r.delivered('fs', 's1', ['/new']);
    // delivered, but the server may not have applied it yet
    expect(r.candidates('fs')).toEqual(['/new', '/old']);
    c.advance(ROOTS_SETTLE_MS + 1);
    expect(r.candidates('fs')).toEqual(['/new']);
  });

  it('an answer naming no directory leaves the roots as they were (server-filesystem keeps its directories)', () => {
    const r = new ClientRoots();
    r.asked('fs');
    r.delivered('fs', 's1', ['/a']);
    r.delivered('fs', 's2', []);
    expect(r.candidates('fs')).toEqual(['/a']);
  });

  it('keeps roots per server', () => {
    const r = new ClientRoots();
    r.asked('a');
    r.asked('b');
    r.delivered('a', 's1', ['/x']);
    expect(r.candidates('a')).toEqual(['/x']);
    expect(r.candidates('b')).toEqual([]);
  });

  it('tries the first-call fetch once per server and session', () => {
    const r = new ClientRoots();
    expect(r.firstTry('fs', 's1')).toBe(true);
    expect(r.firstTry('fs', 's1')).toBe(false);
    expect(r.firstTry('fs', 's2')).toBe(true);
    expect(r.firstTry('other', 's1')).toBe(true);
  });

  it('remembers which sessions can answer roots/list', () => {
    const r = new ClientRoots();
    expect(r.canAnswer('s1')).toBe(false);
    r.canAnswer('s1', true);
    expect(r.canAnswer('s1')).toBe(true);
    expect(r.canAnswer('s2')).toBe(false);
  });
});
