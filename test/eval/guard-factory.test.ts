import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyError } from '../../src/core/errors.js';
import { InteractionSchema, type InteractionInput } from '../../src/core/types.js';
import { pipelineGuardFactory } from '../../src/eval/guard-factory.js';
import type { GuardModelHooks } from '../../src/guard/model/index.js';
import { ModelOptionsSchema } from '../../src/guard/options.js';
import type { GuardPipeline } from '../../src/guard/pipeline.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const i = (over: Partial<InteractionInput> & Pick<InteractionInput, 'kind'>) => InteractionSchema.parse({ agent: 'assistant', session: 's1', ...over });
const PRIVATE = 'The merger with Borealis Labs closes on the third of March; keep the price of 41 million to the board.';
const readMail = i({ kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: PRIVATE }] });
// The read mail's own text going out: the data-flow rule fires only where the read was seen (the same case's state).
const sendOut = i({ kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'z@outside.example', body: PRIVATE } });

describe('pipelineGuardFactory: the real pipeline per eval case', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'qg-eval-factory-'));
    cpSync(DEFAULT_BOOK, join(dir, 'default'), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives every case fresh state (Γ) over one compiled book', async () => {
    const guardFor = pipelineGuardFactory(dir);
    const first = await guardFor('default', { agent: 'assistant' });
    await first.guard.check(readMail);
    expect((await first.guard.check(sendOut)).rules).toContain('no-read-then-exfiltrate');
    const second = await guardFor('default', { agent: 'assistant' });
    expect((await second.guard.check(sendOut)).rules).not.toContain('no-read-then-exfiltrate');
    expect((second.guard as GuardPipeline).book).toBe((first.guard as GuardPipeline).book);
    await first.close?.();
    await second.close?.();
  });

  it('searches several folders in order: a run mixes a book of its own with the shipped ones', async () => {
    const mine = mkdtempSync(join(tmpdir(), 'qg-eval-mine-'));
    try {
      cpSync(DEFAULT_BOOK, join(mine, 'my-book'), { recursive: true });
      const guardFor = pipelineGuardFactory([mine, join(DEFAULT_BOOK, '..')]);
      for (const name of ['my-book', 'default']) {
        const g = await guardFor(name, { agent: 'assistant' });
        expect((g.guard as GuardPipeline).book.book.name).toBeTruthy();
        await g.close?.();
      }
      await expect(pipelineGuardFactory([mine])('default', { agent: 'assistant' })).rejects.toThrow();
    } finally {
      rmSync(mine, { recursive: true, force: true });
    }
  });

  it('applies the run settings and fresh model hooks to every case guard', async () => {
    let made = 0;
    const modelFor = (): GuardModelHooks => {
      made++;
      return {
        semantic: async () => ({ values: new Map() }),
        expand: async () => ({ values: new Map() }),
        reviewer: async () => ({ ruling: 'deny' }),
        observe: () => {},
        options: ModelOptionsSchema.parse({}),
      };
    };
    const audited = await (await pipelineGuardFactory(dir)('default', {})).guard.check(readMail);
    expect(audited.auditId).toBeDefined();
    const guardFor = pipelineGuardFactory(dir, { settings: { audit: false }, modelFor });
    const a = await guardFor('default', {});
    await guardFor('default', {});
    expect(made).toBe(2);
    expect((await a.guard.check(readMail)).auditId).toBeUndefined();
  });

  it('fails with the policy error for a missing book, and tries again on the next case', async () => {
    const guardFor = pipelineGuardFactory(dir);
    await expect(guardFor('nope', {})).rejects.toBeInstanceOf(PolicyError);
    await expect(guardFor('nope', {})).rejects.toBeInstanceOf(PolicyError);
  });
});
