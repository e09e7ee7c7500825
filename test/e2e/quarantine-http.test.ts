/**
 * End to end over Streamable HTTP with bearer-token agents: an agent that floods the proxy is raised to higher
 * threat levels and quarantined (every call then denied with a quarantine rationale, other agents unaffected);
 * the quarantine survives a restart of the proxy on the same store, until `quadguard agents release`.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp, runCli } from '../../src/cli/demos/kit.js';
import { makeSandbox, ROOT, server, startHttpProxy, writeConfig } from '../support/proxy-harness.js';
import { messageVerdict, metaDecision, text } from './helpers.js';

const TOKENS = { FLOODER_TOKEN: 'flooder-token-0123456789abcdef', PLANNER_TOKEN: 'planner-token-0123456789abcdef' };

describe('e2e over HTTP: burst → threat level → quarantine, persisted across restarts', () => {
  const sb = makeSandbox();
  const store = join(sb.dir, 'state.db');
  let cfg: string;
  let proxy: Awaited<ReturnType<typeof startHttpProxy>> | undefined;
  const clients: Client[] = [];
  const connect = async (token: string) => {
    const c = await connectHttp(proxy!.url, token, 'e2e');
    clients.push(c);
    return c;
  };
  const say = async (c: Client, sender: string, content: string) =>
    messageVerdict(await c.callTool({ name: 'guard_check_message', arguments: { sender, recipient: 'planner', content } }));
  const closeAll = async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {});
    await proxy?.stop();
    proxy = undefined;
  };

  beforeAll(async () => {
    cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: join(ROOT, 'policies', 'default'),
      store,
      // A flood this test can produce on a loaded machine (about 20 messages a second): the default threshold (150
      // requests in 10 s) is set so that a busy coding agent is not quarantined.
      guard: { watcher: { burst_threshold: 40 } },
      agents: { flooder: { token: { env: 'FLOODER_TOKEN' } }, planner: { token: { env: 'PLANNER_TOKEN' } } },
    });
    proxy = await startHttpProxy(cfg, TOKENS, ['--no-ui']);
  }, 120_000);
  afterAll(async () => {
    await closeAll();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('raises a flooding agent\'s threat level and then quarantines it; other agents are unaffected', async () => {
    const flooder = await connect(TOKENS.FLOODER_TOKEN);
    const planner = await connect(TOKENS.PLANNER_TOKEN);
    const first = await say(flooder, 'flooder', 'Status update: the itinerary draft is ready.');
    expect(first.decision, first.rationale).toBe('allow');
    expect(first.threat_level).toBe(0);

    // Fire benign messages in concurrent batches (a burst), watching the threat level, until quarantine.
    const levels: number[] = [];
    let quarantine: ReturnType<typeof messageVerdict> | undefined;
    for (let batch = 0; batch < 30 && !quarantine; batch++) {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => say(flooder, 'flooder', `Status update ${batch}.${i}: still working on the draft.`)));
      for (const v of results) {
        levels.push(v.threat_level);
        if (/quarantined/.test(v.rationale)) quarantine ??= v;
      }
    }
    expect(quarantine, `levels seen: ${levels.join(',')}`).toBeDefined();
    expect(quarantine!.decision).toBe('deny');
    expect(quarantine!.threat_level).toBe(4);
    expect(quarantine!.rationale).toMatch(/burst/);
    // It went up through the intermediate levels before quarantine.
    const beforeQuarantine = levels.slice(0, levels.indexOf(4));
    expect(Math.max(...beforeQuarantine)).toBeGreaterThanOrEqual(2);

    // From now on every interaction of the flooder is denied, messages and tool calls alike.
    const after = await say(flooder, 'flooder', 'Harmless: the hotel is booked.');
    expect(after.decision).toBe('deny');
    expect(after.rationale).toMatch(/is quarantined by QuadGuard.*agents release flooder/);
    const call = (await flooder.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } })) as CallToolResult;
    expect(call.isError).toBe(true);
    expect(metaDecision(call)?.rationale).toMatch(/quarantined/);
    expect(text(call)).not.toContain('hello notes');

    // The planner is another agent: its burst window and threat level are its own.
    const ok = await say(planner, 'planner', 'Please confirm the hotel for 14 March.');
    expect(ok.decision, ok.rationale).toBe('allow');
    expect(ok.threat_level).toBe(0);

    const list = await runCli(['agents', 'list', '--quarantined', '--store', store]);
    expect(list.stdout).toMatch(/^flooder .*QUARANTINED \(request burst/m);
    expect(list.stdout).not.toMatch(/planner/);
  }, 120_000);

  it('keeps the agent quarantined after a restart on the same store, until `agents release`', async () => {
    await closeAll();
    proxy = await startHttpProxy(cfg, TOKENS, ['--no-ui']);
    const flooder = await connect(TOKENS.FLOODER_TOKEN);
    const still = await say(flooder, 'flooder', 'Hello again after the restart.');
    expect(still.decision).toBe('deny');
    expect(still.rationale).toMatch(/is quarantined/);

    const rel = await runCli(['agents', 'release', 'flooder', '--store', store, '--by', 'e2e']);
    expect(rel.code, rel.stderr).toBe(0);
    expect(rel.stdout).toMatch(/^released flooder/);

    const back = await say(flooder, 'flooder', 'Hello again after the release.');
    expect(back.decision, back.rationale).toBe('allow');
    expect(back.threat_level).toBe(0);
    const call = (await flooder.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } })) as CallToolResult;
    expect(call.isError, text(call)).toBeFalsy();
    expect(text(call)).toBe('hello notes\n');
  }, 120_000);
});
