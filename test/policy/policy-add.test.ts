/**
 * `quadguard policy add <book> "<sentence>"` (issue #28): each rule shape compiled offline into the book, its test
 * case replayed through the real pipeline; an unknown sentence gets the shapes and the YAML to write; a signed book
 * is signed again with --key and refused without it. Also the CLI frictions around books: `policy keygen` into a
 * folder that does not exist, `policy check` on a signed book edited since, `policy compile` with no model.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addSentence } from '../../src/cli/policy-add.js';
import { loadBook } from '../../src/policy/load.js';
import { SENTENCE_SHAPES } from '../../src/policy/sentence.js';
import { generateSigningKeys, signatureState, signBook } from '../../src/policy/sign.js';
import { CLI, ROOT } from '../support/proxy-harness.js';

let dir: string;
let book: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'qg-policy-add-'));
  book = join(dir, 'mine');
  cpSync(join(ROOT, 'policies', 'default'), book, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });

describe('policy add', () => {
  it.each(SENTENCE_SHAPES.map((s) => [s.shape, s.example] as const))('%s: "%s" becomes a rule whose test case it denies; the book only grows', async (shape, sentence) => {
    const before = readFileSync(join(book, 'book.yaml'), 'utf8');
    const r = await addSentence(book, sentence);
    expect(r.rule.shape).toBe(shape);
    const after = readFileSync(join(book, 'book.yaml'), 'utf8');
    // Insertions only: every line of the book is still there, in order (comments and folding kept).
    const kept = before.split('\n').filter((l) => after.includes(l));
    expect(kept).toHaveLength(before.split('\n').length);
    const { compiled } = await loadBook(book);
    expect(compiled.rules.map((x) => x.def.id)).toContain(r.rule.rule.id);
    expect(readFileSync(join(book, 'cases.jsonl'), 'utf8')).toBe(`${r.caseLine}\n`);
    expect(readFileSync(join(book, 'policy.md'), 'utf8')).toContain(`- ${sentence}`);
    expect(r.yaml).toContain(`id: ${r.rule.rule.id}`);
  });

  it('every shape\'s sentence in a row builds on the others; eval of the cases it wrote denies each', async () => {
    for (const s of SENTENCE_SHAPES) await addSentence(book, s.example);
    const r = cli(['eval', '--cases', join(book, 'cases.jsonl'), '--policies', dir, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^overall +${SENTENCE_SHAPES.length} +100\\.0%`, 'm'));
  });

  it('a sentence of no known shape: the shapes, and the YAML to write by hand; the book is untouched', async () => {
    const before = readFileSync(join(book, 'book.yaml'), 'utf8');
    await expect(addSentence(book, 'Searches should be polite and brief')).rejects.toThrow(/no rule shape matches[\s\S]*recipients limited to domains[\s\S]*rules:\n {2}- id: my-rule/);
    expect(readFileSync(join(book, 'book.yaml'), 'utf8')).toBe(before);
  });

  it('a signed book: refused without --key before writing; signed again with it', async () => {
    const keys = generateSigningKeys();
    writeFileSync(join(dir, 'k.pem'), keys.privateKeyPem);
    await signBook(book, keys.privateKeyPem);
    const before = readFileSync(join(book, 'book.yaml'), 'utf8');
    await expect(addSentence(book, 'Never call github__delete_repo')).rejects.toThrow(/is signed .*pass --key/);
    expect(readFileSync(join(book, 'book.yaml'), 'utf8')).toBe(before);
    const r = await addSentence(book, 'Never call github__delete_repo', { key: join(dir, 'k.pem') });
    expect(r.signed).toBe(join(book, 'book.sig'));
    const { compiled, file } = await loadBook(book);
    expect((await signatureState(file, compiled))?.matches).toBe(true);
  });
});

describe('the CLI around books', () => {
  it('policy keygen creates the folder of --out', () => {
    const r = cli(['policy', 'keygen', '--out', 'keys/nested/policy']);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(dir, 'keys', 'nested', 'policy.key.pem'))).toBe(true);
  });

  it('policy check on a signed book edited since: says the signature no longer matches and how to sign', async () => {
    await signBook(book, generateSigningKeys().privateKeyPem);
    expect(cli(['policy', 'check', book]).stdout).toMatch(/: ok: .*, signed$/m);
    writeFileSync(join(book, 'book.yaml'), readFileSync(join(book, 'book.yaml'), 'utf8').replace('Never publish', 'Do not publish'));
    writeFileSync(join(book, 'book.yaml'), readFileSync(join(book, 'book.yaml'), 'utf8').replace('severity: critical', 'severity: high'));
    const r = cli(['policy', 'check', book]);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('the signature no longer matches');
    expect(r.stdout).toContain(`quadguard policy sign ${book} --key <private.pem>`);
  });

  it('policy compile with no model names what works offline', () => {
    writeFileSync(join(dir, 'p.md'), 'Never publish secrets.\n');
    const r = cli(['policy', 'compile', 'p.md', '-o', 'out']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('quadguard policy add <book> "<sentence>"');
    expect(r.stderr).toContain('book.yaml');
  });
});
