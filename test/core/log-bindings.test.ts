/**
 * Log lines name each key once (issue #28): a module's logger made from another module's (`mod` bound at both
 * levels) wrote `"mod":"proxy","mod":"downstream"`. Lines are read back with a YAML 1.2 reader, which (JSON being
 * YAML) refuses a mapping with a repeated key where JSON.parse would keep the last silently.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parse as parseStrict } from 'yaml';
import { uniqueBindings } from '../../src/core/log.js';

function sink(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  return { lines, stream: new Writable({ write(chunk, _enc, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } }) };
}

describe('log bindings', () => {
  it('the strict reader refuses a repeated key (so the test below can fail)', () => {
    expect(() => parseStrict('{"mod":"proxy","mod":"downstream"}')).toThrow(/unique/i);
  });

  it('a child of a child binding the same key writes it once, with the innermost value, at its first place', () => {
    const { lines, stream } = sink();
    const root = pino({ base: { name: 'quadguard' }, onChild: uniqueBindings }, stream);
    const downstream = root.child({ mod: 'proxy', session: 's1' }).child({ mod: 'downstream', server: 'fs' });
    downstream.child({ call: 7 }).info({ tools: 3 }, 'hello');
    downstream.warn('again');
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const rec = parseStrict(line) as Record<string, unknown>;
      expect(rec.mod).toBe('downstream');
      expect(rec.session).toBe('s1');
      expect(rec.server).toBe('fs');
    }
    expect(lines[1]).toMatch(/"name":"quadguard","mod":"downstream","session":"s1","server":"fs"/);
  });

  it('without the hook pino repeats the key (what the hook fixes)', () => {
    const { lines, stream } = sink();
    pino({}, stream).child({ mod: 'proxy' }).child({ mod: 'downstream' }).info('x');
    expect(lines[0]).toContain('"mod":"proxy","mod":"downstream"');
  });

  it('redacted bindings stay redacted after the merge', () => {
    const { lines, stream } = sink();
    pino({ redact: { paths: ['token'] }, onChild: uniqueBindings }, stream).child({ token: 'secret', mod: 'a' }).child({ mod: 'b' }).info('x');
    expect(lines[0]).not.toContain('secret');
    expect((parseStrict(lines[0]!) as { mod: string }).mod).toBe('b');
  });
});
