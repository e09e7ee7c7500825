/**
 * End to end over stateless Streamable HTTP with bearer tokens: every POST is its own session, and the data an
 * identity read in one POST is still recognised in the next; another token's identity is not affected.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../../src/cli/demos/kit.js';
import { makeSandbox, ROOT, server, startHttpProxy, writeConfig } from '../support/proxy-harness.js';
import { metaDecision, text } from './helpers.js';

const PRIVATE = 'Payroll run for November: Dana Whitfield moves to the Oslo office with a salary of 98,500 euros from January onwards.';
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef01';

describe('e2e over stateless HTTP: data flow is kept per identity, not per session', () => {
  const sb = makeSandbox();
  let proxy: Awaited<ReturnType<typeof startHttpProxy>>;
  const outbox = () => (existsSync(sb.outbox) ? readFileSync(sb.outbox, 'utf8') : '');

  beforeAll(async () => {
    writeFileSync(sb.inbox, JSON.stringify([{ id: '1', from: 'hr@example.com', subject: 'Payroll', body: PRIVATE }]));
    const cfg = writeConfig(sb.dir, {
      servers: { mail: server('mail', '--inbox', sb.inbox, '--outbox', sb.outbox) },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      agents: { alice: { token: { value: ALICE } }, bob: { token: { value: BOB } } },
      http: { stateless: true },
    });
    proxy = await startHttpProxy(cfg);
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('denies alice sending what she read in an earlier POST; bob may send the same text', async () => {
    const a1 = await connectHttp(proxy.url, ALICE, 'a1');
    await a1.listTools();
    const read = (await a1.callTool({ name: 'mail__read_email', arguments: { id: '1' } })) as CallToolResult;
    expect(read.isError, text(read)).toBeFalsy();
    await a1.close();

    const a2 = await connectHttp(proxy.url, ALICE, 'a2');
    const send = (await a2.callTool({ name: 'mail__send_email', arguments: { to: 'recruiter@outside.example', subject: 'a', body: PRIVATE } })) as CallToolResult;
    expect(send.isError).toBe(true);
    expect(metaDecision(send)?.rules).toContain('no-read-then-exfiltrate');
    await a2.close();
    expect(outbox()).toBe('');

    const b = await connectHttp(proxy.url, BOB, 'b');
    const other = (await b.callTool({ name: 'mail__send_email', arguments: { to: 'recruiter@outside.example', subject: 'b', body: PRIVATE } })) as CallToolResult;
    expect(other.isError, text(other)).toBeFalsy();
    await b.close();
    expect(outbox()).toContain('"subject":"b"');
  }, 60_000);
});
