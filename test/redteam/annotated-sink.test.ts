/**
 * Red-team hole #27 class 12: a tool that says it is read-only and closed-world (its server's own annotations)
 * received another server's private data. Annotations never clear a tool for another server's data: through the
 * built CLI, the bundled mail server and the outside server's `lookup` (readOnlyHint, openWorldHint false), the
 * private mail sent to it is denied and never reaches its log; an ordinary lookup passes.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStdio, makeSandbox, ROOT, server, writeConfig } from '../support/proxy-harness.js';

const PRIVATE = 'Project Nightingale: the acquisition of Borealis Labs closes on March 3 for 41 million dollars; the board meets in Lisbon.';

describe("a read-only, closed-world tool receiving another server's private data (#27 class 12)", () => {
  const sb = makeSandbox();
  const log = join(sb.dir, 'outside.jsonl');
  let session: Awaited<ReturnType<typeof connectStdio>>;
  const call = (name: string, args: Record<string, unknown>) => session.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  const logged = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');

  beforeAll(async () => {
    writeFileSync(sb.inbox, JSON.stringify([{ id: '1', from: 'cfo@example.com', subject: 'Confidential', body: PRIVATE }]));
    const cfg = writeConfig(sb.dir, {
      servers: {
        mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox),
        out: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'outside.js'), '--log', log] },
      },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
    });
    session = await connectStdio(cfg, 'assistant');
    await session.client.listTools();
  }, 120_000);
  afterAll(async () => {
    await session?.client.close().catch(() => undefined);
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('passes an ordinary lookup, and denies the private mail sent to it; nothing of the mail arrives', async () => {
    const ok = await call('out__lookup', { query: 'Borealis Labs' });
    expect(ok.isError).toBeFalsy();
    expect((await call('mail__read_email', { id: '1' })).isError).toBeFalsy();
    const leak = await call('out__lookup', { query: `Summary: ${PRIVATE}` });
    expect(leak.isError).toBe(true);
    expect(JSON.stringify(leak.content)).toMatch(/no-read-then-exfiltrate|data came from mail__read_email/);
    expect(logged()).not.toContain('Nightingale');
  }, 120_000);
});
