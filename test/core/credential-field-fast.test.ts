/**
 * `isCredentialField`'s early exit (a field without any literal every credential name holds, and no schema keys) gives
 * the former answer: on the field paths of the red-team tests' and the eval dev cases' arguments, and on generated
 * paths of credential words, indices, separators and case.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isCredentialField } from '../../src/core/credential-fields.js';
import { stringLeaves } from '../../src/core/fields.js';
import { isCredentialFieldBefore } from './reference/credential-field.js';

/** Every object key path below `v`, as the detectors name fields (`arguments.a.0.b`), and each key alone. */
function pathsOf(v: unknown, at: string, out: Set<string>): void {
  if (v === null || typeof v !== 'object') return;
  for (const [k, x] of Object.entries(v)) {
    const p = `${at}.${k}`;
    out.add(p);
    out.add(k);
    pathsOf(x, p, out);
  }
}

/** Key paths of the eval dev cases' arguments (when ../shared is there) and identifiers of the red-team tests. */
function corpusFields(): string[] {
  const out = new Set<string>(['', '.', 'arguments', 'arguments.0', '0', 'arguments.arguments.password', 'password.0', 'arguments.db.0.password']);
  const dev = join(process.cwd(), '..', 'shared', 'data', 'eval', 'dev');
  if (existsSync(dev)) {
    for (const f of readdirSync(dev).filter((n) => n.endsWith('.jsonl'))) {
      for (const line of readFileSync(join(dev, f), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        for (const s of (JSON.parse(line) as { steps?: { arguments?: unknown }[] }).steps ?? []) pathsOf(s.arguments, 'arguments', out);
      }
    }
  }
  const dir = join(process.cwd(), 'test', 'redteam');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/[A-Za-z_$][\w$.-]{0,60}/g)) out.add(m[0]);
  }
  return [...out];
}

const SCHEMA_KEY_SETS: readonly (readonly string[])[] = [[], ['auth.value'], ['value', 'k'], ['path']];

describe('isCredentialField early exit', () => {
  it('answers as before on the corpora, with and without schema keys', () => {
    const fields = corpusFields();
    expect(fields.length).toBeGreaterThan(2000);
    let credentials = 0;
    for (const keys of SCHEMA_KEY_SETS) {
      for (const f of fields) {
        const want = isCredentialFieldBefore(f, keys);
        if (want) credentials++;
        expect(isCredentialField(f, keys), `${f} ${keys.join(',')}`).toBe(want);
      }
    }
    expect(credentials).toBeGreaterThan(20); // the corpora hold credential fields, not only plain ones
  });

  it('answers as before on the fields the detectors read from generated arguments', () => {
    const word = fc.constantFrom('arguments', 'password', 'Passwd', 'db', 'api', 'Key', 'key', 'token', 'page', 'secret', 'pin', 'cred', 'PWD', 'value', 'auth', '0', '12', 'x', '', 'ü');
    const sep = fc.constantFrom('.', '_', '-', '');
    const field = fc.array(fc.tuple(word, sep), { maxLength: 6 }).map((ps) => ps.map(([w, s]) => w + s).join(''));
    fc.assert(
      fc.property(field, fc.constantFrom(...SCHEMA_KEY_SETS), (f, keys) => {
        expect(isCredentialField(f, keys)).toBe(isCredentialFieldBefore(f, keys));
      }),
      { numRuns: 20000 },
    );
    // The leaves of generated arguments, named as the secrets detector and the credential facts name them.
    fc.assert(
      fc.property(fc.object({ maxDepth: 3 }), (args) => {
        for (const leaf of stringLeaves(args, 'arguments')) expect(isCredentialField(leaf.field)).toBe(isCredentialFieldBefore(leaf.field));
      }),
      { numRuns: 2000 },
    );
  });
});
