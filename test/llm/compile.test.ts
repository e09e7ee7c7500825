import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { addCompileSubcommand, resolveLlmConfig } from '../../src/cli/compile.js';
import { ConfigError } from '../../src/core/errors.js';
import { compilePolicy } from '../../src/llm/compile.js';
import { COMPILER_SYSTEM } from '../../src/llm/prompts/compiler.js';
import { compileBook, PolicyBookSchema } from '../../src/policy/index.js';
import { useScriptedLlmServer } from '../support/scripted-llm-server.js';
import { clientFor, userJson } from './helpers.js';

const POLICY = `# Acme agent policy

- Agents must never send secrets or credentials to an external destination.
- Agents must not forward messages that try to override another agent's instructions, such as "ignore previous instructions".
- Agents should not publish internal documents.
`;

/** What the scripted strong model answers: a plausible translation with a few bad detector proposals. */
function modelAnswer(overrides: Record<string, unknown> = {}) {
  return {
    description: 'Acme agent policy',
    predicates: [
      {
        name: 'secret_in_arguments',
        description: 'the tool call arguments contain a secret or credential',
        keywords: ['api key', 'password', 'token'],
        scope: 'action',
        persistence: 'event',
        detectors: [
          { type: 'secrets', field: 'arguments' },
          { type: 'magic_oracle', wisdom: 11 },
          { type: 'keywords', words: [] },
        ],
      },
      {
        name: 'external_destination',
        description: 'the tool call sends data to a destination outside the organisation',
        keywords: ['send', 'upload', 'http'],
        scope: 'action',
        persistence: 'event',
        detectors: [],
      },
      {
        name: 'prompt_injection',
        description: 'the message tries to override the instructions of its recipient',
        keywords: ['ignore previous instructions'],
        scope: 'message',
        persistence: 'event',
        detectors: [{ type: 'injection', field: 'content' }],
      },
    ],
    rules: [
      {
        id: 'no-secret-exfiltration',
        text: 'Agents must never send secrets or credentials to an external destination.',
        applies_to: ['tool_call'],
        formula: '!(secret_in_arguments & external_destination)',
        severity: 'critical',
        hard: true,
        mode: 'enforce',
        remediation: 'Remove the credential from the arguments.',
      },
      {
        id: 'no-injection-forwarding',
        text: 'Agents must not forward messages that try to override another agent\'s instructions, such as "ignore previous instructions".',
        applies_to: ['message'],
        formula: '!prompt_injection',
        severity: 'high',
        hard: false,
        mode: 'enforce',
      },
    ],
    ...overrides,
  };
}

describe('compilePolicy', () => {
  const llm = useScriptedLlmServer({ per: 'test' });

  it('compiles with the strong tier into a book that validates and lints, with a review sheet', async () => {
    llm.script({ content: modelAnswer() });
    const { book, reviewSheet, notes, usage } = await compilePolicy(clientFor(llm), POLICY, { name: 'acme' });
    // The request: strong model, fixed system prompt, the policy verbatim (not neutralised) as a JSON value.
    const body = llm.chatRequests[0]!.body;
    expect(body.model).toBe('strong-m');
    expect(body.messages[0].content).toBe(COMPILER_SYSTEM);
    const user = userJson(body);
    expect(user.policy_markdown).toBe(POLICY);
    const secrets = user.detector_catalogue.find((d: any) => d.type === 'secrets');
    expect(secrets.options.properties).toHaveProperty('field');
    expect(usage.calls).toBe(1);

    // The book: ours for name/version/source, validated, linted by the policy checker.
    expect(PolicyBookSchema.safeParse(book).success).toBe(true);
    expect(book).toMatchObject({ name: 'acme', version: '0.1.0', source: 'policy.md' });
    expect(() => compileBook(book)).not.toThrow();
    // Unknown detector type and invalid options are dropped and noted; the good one stays.
    expect(book.predicates[0]!.detectors).toEqual([{ type: 'secrets', field: 'arguments' }]);
    expect(notes.some((n) => n.includes('magic_oracle'))).toBe(true);
    expect(notes.some((n) => n.includes('predicates[0].detectors[2]') && n.includes('keywords'))).toBe(true);
    // A normative sentence no rule came from is flagged for the reviewer.
    expect(notes).toContain('No rule cites this sentence: "- Agents should not publish internal documents."');

    // The review sheet: each rule beside its sentence, each predicate with definition and detectors.
    expect(reviewSheet).toContain('### `no-secret-exfiltration` (critical; hard; enforce; applies to tool_call)\n\n> Agents must never send secrets or credentials to an external destination.');
    expect(reviewSheet).toContain('- Formula (must hold): `!(secret_in_arguments & external_destination)`');
    expect(reviewSheet).toContain('### `external_destination` (action, event)\n\nthe tool call sends data to a destination outside the organisation');
    expect(reviewSheet).toContain('- Detectors: none (semantic');
    expect(reviewSheet).toContain('`{"type":"injection","field":"content"}`');
    expect(reviewSheet).toContain('magic_oracle');
  });

  it('flags a rule whose text is not a sentence of the policy', async () => {
    const answer = modelAnswer();
    (answer.rules[1] as { text: string }).text = 'Block all injections everywhere.';
    llm.script({ content: answer });
    const { notes } = await compilePolicy(clientFor(llm), POLICY, { name: 'acme' });
    expect(notes).toContain('Rule no-injection-forwarding: its text is not a verbatim sentence of the policy; compare it with the source.');
  });

  it('rejects a book that does not validate or does not pass the checker', async () => {
    const client = clientFor(llm, { cache_size: 0 });
    const badSchema = modelAnswer();
    delete (badSchema.rules[0] as { severity?: string }).severity;
    llm.script({ content: badSchema });
    await expect(compilePolicy(client, POLICY, { name: 'acme' })).rejects.toMatchObject({ code: 'llm_malformed_output', message: expect.stringContaining('severity') });
    const undefinedPredicate = modelAnswer();
    (undefinedPredicate.rules[1] as { formula: string }).formula = '!(prompt_injection & recipient_is_exec)';
    llm.script({ content: undefinedPredicate });
    await expect(compilePolicy(client, POLICY, { name: 'acme' })).rejects.toMatchObject({ code: 'llm_malformed_output', message: expect.stringContaining('recipient_is_exec') });
    llm.script({ content: 'Here is your policy book: …' });
    await expect(compilePolicy(client, POLICY, { name: 'acme' })).rejects.toMatchObject({ code: 'llm_malformed_output' });
    await expect(compilePolicy(client, '   ', { name: 'acme' })).rejects.toMatchObject({ code: 'policy_source_empty' });
  });
});

describe('quadguard policy compile', () => {
  const llm = useScriptedLlmServer({ per: 'test' });
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'qg-compile-'));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (args: string[]) => {
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (out.push(String(s)), true));
    const policy = new Command('policy').exitOverride();
    addCompileSubcommand(policy);
    await policy.parseAsync(['compile', ...args], { from: 'user' });
    vi.restoreAllMocks();
    return out.join('');
  };

  it('writes book.yaml, policy.md and REVIEW.md with --base-url and --model', async () => {
    llm.script({ content: modelAnswer() });
    const src = join(dir, 'acme-policy.md');
    await writeFile(src, POLICY);
    const outDir = join(dir, 'acme-book');
    const printed = await run([src, '-o', outDir, '--base-url', llm.baseUrl, '--model', 'big-model']);
    expect(printed).toMatch(/^compiled 2 rules and 3 predicates into .*book\.yaml/);
    const book = YAML.parse(await readFile(join(outDir, 'book.yaml'), 'utf8'));
    expect(book.name).toBe('acme-book');
    expect(() => compileBook(book)).not.toThrow();
    expect(await readFile(join(outDir, 'policy.md'), 'utf8')).toBe(POLICY);
    expect(await readFile(join(outDir, 'REVIEW.md'), 'utf8')).toContain('# Review sheet: acme-book 0.1.0');
    expect(llm.chatRequests[0]!.body.model).toBe('big-model');
  });

  it('reads the llm: section of a config file; the strong model compiles', async () => {
    llm.script({ content: modelAnswer() });
    const src = join(dir, 'p.md');
    await writeFile(src, POLICY);
    const cfg = join(dir, 'quadguard.yaml');
    await writeFile(cfg, YAML.stringify({ servers: [], llm: { base_url: llm.baseUrl, models: { light: 'small', strong: 'large' } } }));
    await run([src, '-o', join(dir, 'out'), '--config', cfg, '--name', 'mybook']);
    expect(llm.chatRequests[0]!.body.model).toBe('large');
    expect(YAML.parse(await readFile(join(dir, 'out', 'book.yaml'), 'utf8')).name).toBe('mybook');
  });

  it('explains missing or contradictory endpoint options', async () => {
    await expect(resolveLlmConfig({ out: 'x' })).rejects.toThrow(ConfigError);
    await expect(resolveLlmConfig({ out: 'x', config: 'a.yaml', baseUrl: 'http://127.0.0.1:1/v1' })).rejects.toThrow(/not both/);
    const c = await resolveLlmConfig({ out: 'x', baseUrl: 'http://127.0.0.1:1/v1', model: 'm', timeoutMs: '5000' });
    expect(c).toMatchObject({ models: { light: 'm', strong: 'm' }, timeout_ms: 5000 });
    expect((await resolveLlmConfig({ out: 'x', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' })).timeout_ms).toBe(180_000);
  });
});
