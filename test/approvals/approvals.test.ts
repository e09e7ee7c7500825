import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { argsHash } from '../../src/guard/approvals.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';
import { InteractionSchema, type Decision, type InteractionInput } from '../../src/core/types.js';
import { loadBook } from '../../src/policy/load.js';
import { backends, warmUp } from '../store/backends.js';
import { APPROVAL_BOOK, writeBook } from './support.js';

const list = backends();
warmUp(list);

const call = (args: Record<string, unknown>, over: Partial<InteractionInput> = {}) =>
  InteractionSchema.parse({ kind: 'tool_call', agent: 'writer', session: 's1', server: 'ws', tool: 'publish', arguments: args, ...over });
const approvalOf = (d: Decision) => d.detail.approval!;

describe.each(list)('approvals ($name): rules with effect approve hold a call until a person approves it', (b) => {
  let dir: string;
  let g: BuiltGuard;
  let now = 1_700_000_000_000;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-approvals-'));
    now = 1_700_000_000_000;
    g = await buildGuard({ policy: writeBook(), store: b.name === 'sqlite' ? join(dir, 'state.db') : await b.fresh(), settings: { approval_ttl_ms: 60_000 }, now: () => now });
  });
  afterEach(async () => {
    await g.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the call with an approval id, a rationale and the way to approve it', async () => {
    const d = await g.pipeline.check(call({ name: 'post.md', content: 'hello' }));
    expect(d.decision).toBe('deny');
    expect(d.source).toBe('approval');
    expect(d.rules).toEqual(['publish-needs-approval']);
    const a = approvalOf(d);
    expect(a).toEqual({ id: expect.stringMatching(/^ap_[0-9a-f]{20}$/), status: 'pending', expiresAt: now + 60_000 });
    expect(d.rationale).toMatch(/^Held for approval by QuadGuard: rule `publish-needs-approval`/);
    expect(d.remediation).toContain(`\`quadguard approve ${a.id}\``);
    expect(d.remediation).toContain('retry exactly the same call');
    expect(d.remediation).toContain(a.id);
    const row = (await g.pipeline.store.approvals.get(a.id))!;
    expect(row).toMatchObject({ agent: 'writer', session: 's1', kind: 'tool_call', server: 'ws', tool: 'publish', status: 'pending', rules: ['publish-needs-approval'] });
    expect(row.argsHash).toBe(argsHash({ content: 'hello', name: 'post.md' }));
    expect(row.preview).toContain('post.md');
  });

  it('a retry before anyone decides is held under the same id (no pile of requests)', async () => {
    const first = approvalOf(await g.pipeline.check(call({ name: 'a' })));
    now += 1000;
    const again = await g.pipeline.check(call({ name: 'a' }));
    expect(again.decision).toBe('deny');
    expect(approvalOf(again).id).toBe(first.id);
    expect(await g.pipeline.store.approvals.list({ now })).toHaveLength(1);
  });

  it('after approval the identical retry passes once (key order does not matter); the next one is held again', async () => {
    const held = approvalOf(await g.pipeline.check(call({ name: 'a', content: 'x' })));
    await g.pipeline.store.approvals.approve(held.id, 'alice', 'cli', now);
    now += 1000;
    const ok = await g.pipeline.check(call({ content: 'x', name: 'a' }));
    expect(ok.decision).toBe('allow');
    expect(ok.source).toBe('approval');
    expect(ok.rationale).toContain(held.id);
    expect(ok.rationale).toContain('alice');
    expect(ok.flagged).toContain('publish-needs-approval');
    expect(approvalOf(ok)).toMatchObject({ id: held.id, status: 'used' });
    expect((await g.pipeline.store.approvals.get(held.id))!.status).toBe('used');

    const third = await g.pipeline.check(call({ name: 'a', content: 'x' }));
    expect(third.decision).toBe('deny');
    expect(approvalOf(third).id).not.toBe(held.id);
    expect(approvalOf(third).status).toBe('pending');
  });

  it('binds to the exact arguments, tool and agent: any other call is still held', async () => {
    const held = approvalOf(await g.pipeline.check(call({ name: 'a', content: 'x' })));
    await g.pipeline.store.approvals.approve(held.id, 'alice', 'cli', now);
    const otherArgs = await g.pipeline.check(call({ name: 'a', content: 'x ' }));
    const otherAgent = await g.pipeline.check(call({ name: 'a', content: 'x' }, { agent: 'intruder' }));
    const otherTool = await g.pipeline.check(call({ name: 'a', content: 'x' }, { tool: 'publish_now' }));
    const otherServer = await g.pipeline.check(call({ name: 'a', content: 'x' }, { server: 'ws2' }));
    for (const d of [otherArgs, otherAgent, otherTool, otherServer]) {
      expect(d.decision).toBe('deny');
      expect(approvalOf(d).id).not.toBe(held.id);
    }
    // The approval is still unused: the right call still passes.
    expect((await g.pipeline.store.approvals.get(held.id))!.status).toBe('approved');
    expect((await g.pipeline.check(call({ name: 'a', content: 'x' }))).decision).toBe('allow');
  });

  it('expires: an approval not used in time lets nothing through, and cannot be approved late', async () => {
    const held = approvalOf(await g.pipeline.check(call({ name: 'late' })));
    await g.pipeline.store.approvals.approve(held.id, 'alice', 'cli', now);
    now += 60_001;
    const d = await g.pipeline.check(call({ name: 'late' }));
    expect(d.decision).toBe('deny');
    expect(approvalOf(d).id).not.toBe(held.id);
    expect((await g.pipeline.store.approvals.expireDue(now)).map((a) => a.id)).toContain(held.id);
    expect((await g.pipeline.store.approvals.get(held.id))!.status).toBe('expired');

    const pending = approvalOf(d);
    now += 60_001;
    await expect(g.pipeline.store.approvals.approve(pending.id, 'bob', 'cli', now)).rejects.toThrow(/is expired/);
  });

  it('a denied approval lets nothing through, and cannot be approved afterwards', async () => {
    const held = approvalOf(await g.pipeline.check(call({ name: 'no' })));
    await g.pipeline.store.approvals.deny(held.id, 'alice', 'cli', now);
    await expect(g.pipeline.store.approvals.approve(held.id, 'alice', 'cli', now)).rejects.toThrow(/is denied/);
    const d = await g.pipeline.check(call({ name: 'no' }));
    expect(d.decision).toBe('deny');
    expect(approvalOf(d).id).not.toBe(held.id);
  });

  it('hard and plain soft denials carry no approval and are never let through by one', async () => {
    const hard = await g.pipeline.check(call({ path: '/etc/passwd' }, { tool: 'delete_file' }));
    expect(hard.decision).toBe('deny');
    expect(hard.rules).toEqual(['no-delete-outside-sandbox']);
    expect(hard.detail.approval).toBeUndefined();
    expect(hard.rationale).toMatch(/^Denied by policy/);
    const soft = await g.pipeline.check(call({ to: 'x@example.com' }, { tool: 'send_email' }));
    expect(soft.decision).toBe('deny');
    expect(soft.detail.approval).toBeUndefined();
    expect(await g.pipeline.store.approvals.list({ now })).toHaveLength(0);
  });

  it('audits every transition as an admin row', async () => {
    const held = approvalOf(await g.pipeline.check(call({ name: 'audit' })));
    await g.pipeline.store.approvals.approve(held.id, 'alice', 'ui', now);
    await g.pipeline.check(call({ name: 'audit' }));
    const other = approvalOf(await g.pipeline.check(call({ name: 'other' })));
    await g.pipeline.store.approvals.deny(other.id, 'bob', 'cli', now);
    const third = approvalOf(await g.pipeline.check(call({ name: 'third' })));
    now += 120_000;
    await g.pipeline.store.approvals.expireDue(now);
    const admin = (await g.pipeline.store.audit.tail(100)).filter((r) => r.kind === 'admin').map((r) => [r.tool, r.decision, r.source]);
    expect(admin).toEqual([
      ['approval_request', 'deny', 'pipeline'],
      ['approve_call', 'allow', 'ui'],
      ['use_approval', 'allow', 'pipeline'],
      ['approval_request', 'deny', 'pipeline'],
      ['deny_call', 'deny', 'cli'],
      ['approval_request', 'deny', 'pipeline'],
      ['expire_approval', 'deny', 'store'],
    ]);
    const rows = await g.pipeline.store.audit.tail(100);
    expect(rows.find((r) => r.tool === 'approve_call')!.rationale).toContain('by alice');
    expect(rows.find((r) => r.tool === 'expire_approval')!.rationale).toContain(third.id);
    expect((await g.pipeline.store.audit.verify()).ok).toBe(true);
  });

  it('a held call does not raise the agent\'s threat level', async () => {
    for (let k = 0; k < 5; k++) await g.pipeline.check(call({ name: `n${k}` }));
    expect((await g.pipeline.store.state.getThreat('writer')).tau).toBe(0);
  });
});

describe('policy check: approvals and hard rules', () => {
  it('refuses a hard rule with effect approve (policy_schema_error naming the rule)', async () => {
    const bad = structuredClone(APPROVAL_BOOK);
    (bad.rules[0] as Record<string, unknown>).hard = true;
    const dir = writeBook(bad);
    try {
      await expect(loadBook(dir)).rejects.toThrow(/publish-needs-approval is hard and has effect approve/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
