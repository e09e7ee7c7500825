import { mkdtemp, readFile, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { registerPolicyCommands } from '../../src/cli/policy.js';
import { registerTestDetectors, sampleBook } from './support.js';

registerTestDetectors();

let out = '';
beforeEach(() => {
  out = '';
  process.exitCode = undefined;
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

async function run(...args: string[]): Promise<{ out: string; code: number }> {
  const program = new Command('quadguard').exitOverride();
  registerPolicyCommands(program);
  await program.parseAsync(['node', 'quadguard', 'policy', ...args]);
  return { out, code: Number(process.exitCode ?? 0) };
}

async function bookDir(book: unknown = sampleBook()): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'qg-cli-'));
  await writeFile(join(dir, 'book.json'), JSON.stringify(book, null, 2));
  return dir;
}

describe('quadguard policy', () => {
  it('check: ok with a summary, exit 0', async () => {
    const dir = await bookDir();
    const r = await run('check', dir);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: ok: sample@1, 4 predicates, 3 rules, 0 warning\(s\), hash [0-9a-f]{16}/);
  });

  it('check: prints file:line:col: code: message for every error and exits 1', async () => {
    const book = sampleBook();
    book.rules[0]!.formula = '!(secret & publsh)';
    book.rules[1]!.formula = 'secret ->';
    const dir = await bookDir(book);
    const r = await run('check', dir);
    expect(r.code).toBe(1);
    const file = join(dir, 'book.json');
    expect(r.out).toContain(`${file}:`);
    expect(r.out).toMatch(/book\.json:\d+:\d+: policy_parse_error: rule no-external-secret: unexpected end of formula/);
    expect(r.out).toMatch(/book\.json:\d+:\d+: policy_undefined_predicate: rule no-secret-publish uses undefined predicate publsh \(did you mean publish\?\)/);
    expect(r.out).toMatch(/2 error\(s\)/);
  });

  it('check: warnings keep exit code 0', async () => {
    const book = sampleBook();
    book.predicates.push({ name: 'spare', description: 'unused' });
    const r = await run('check', await bookDir(book));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/warning: policy_unused_predicate: predicate spare is not used by any rule/);
    expect(r.out).toMatch(/warning: policy_semantic_predicate/);
  });

  it('explain: table of predicates, rules, witnesses and verdict; --json for machines', async () => {
    const dir = await bookDir();
    const interaction = JSON.stringify({ kind: 'tool_call', server: 'github', tool: 'publish', arguments: { secret: true, publish: true, external: false } });
    const r = await run('explain', dir, '--interaction', interaction);
    expect(r.out).toMatch(/secret\s+true\s+arguments\.secret is set/);
    expect(r.out).toMatch(/violated\s+no-secret-publish \[critical, hard\]: !\(secret & publish\)/);
    expect(r.out).toMatch(/witness: secret=true, publish=true {2}confidence 1\.00/);
    // `unrelated` is bound to mail__* tools: the guard does not evaluate it on github__publish, so mail-ok holds.
    expect(r.out).toMatch(/unrelated\s+unknown\s+arguments\.unrelated missing \[not among the guard's candidates: taken as false\]/);
    expect(r.out).toMatch(/satisfied mail-ok/);
    expect(r.out).toMatch(/decision \(the guard on a fresh session, as the proxy decides\): deny \(no-secret-publish\); threat level after: \d/);
    expect(r.out).toMatch(/rationale: Denied by policy: rule `no-secret-publish`/);

    const file = join(dir, 'i.json');
    await writeFile(file, interaction);
    out = '';
    const j = JSON.parse((await run('explain', dir, '--interaction', `@${file}`, '--json')).out);
    expect(j.verdict).toBe('deny');
    expect(j.decision).toMatchObject({ decision: 'deny', rules: ['no-secret-publish'], flagged: [], source: 'pipeline' });
    expect(j.interaction).toMatchObject({ kind: 'tool_call', agent: 'cli', session: 'explain' });
    expect(j.rules.find((x: { id: string }) => x.id === 'no-secret-publish')).toMatchObject({
      status: 'violated',
      witness: { predicates: { secret: 'true', publish: 'true' }, confidence: 1 },
    });
  });

  it('keygen, sign and verify round-trip; a tampered book fails verify', async () => {
    const dir = await bookDir();
    const prefix = join(dir, 'k');
    await run('keygen', '--out', prefix);
    expect((await stat(`${prefix}.key.pem`)).mode & 0o777).toBe(0o600);
    await expect(run('keygen', '--out', prefix)).rejects.toThrow(/EEXIST/);
    out = '';
    expect((await run('sign', dir, '--key', `${prefix}.key.pem`)).out).toMatch(/^signed [0-9a-f]{16} with key [0-9a-f]{16}: .*book\.sig/);
    out = '';
    expect((await run('verify', dir, '--pub', `${prefix}.pub.pem`)).out).toMatch(/^ok: signature by key/);
    const book = JSON.parse(await readFile(join(dir, 'book.json'), 'utf8'));
    book.rules[0].severity = 'low';
    await writeFile(join(dir, 'book.json'), JSON.stringify(book));
    await expect(run('verify', dir, '--pub', `${prefix}.pub.pem`)).rejects.toMatchObject({ code: 'policy_signature_invalid' });
  });
});
