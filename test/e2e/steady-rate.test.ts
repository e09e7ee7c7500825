/**
 * Rate is not threat (issue #26): a scripted client calling at 50 calls a second for a minute through the built
 * CLI's `serve` (stdio, the bundled workspace server, the default policy and default settings) is never slowed or
 * quarantined, and its threat level stays 0. The loop is paced by the clock and stops by itself after 60 s.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, connectStdio, makeSandbox, ROOT, server, writeConfig } from '../support/proxy-harness.js';
import { metaDecision, text } from './helpers.js';

const PER_SECOND = 50;
const SECONDS = 60;

describe('a client at 50 calls a second for a minute', () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('is never slowed or quarantined with the default settings', async () => {
    const store = join(sb.dir, 'state.db');
    const cfg = writeConfig(sb.dir, { servers: { ws: server('workspace', '--root', sb.workspace) }, policy: join(ROOT, 'policies', 'default'), store });
    const { client } = await connectStdio(cfg, 'scripted');
    const refused: string[] = [];
    let calls = 0;
    let maxLevel = 0;
    try {
      await client.listTools();
      const start = Date.now();
      // Paced by the clock: the n-th call starts no earlier than n/50 s after the start. Calls in flight at once stay
      // bounded (a loaded machine may answer slower than 20 ms: the pace is kept by sending while earlier calls are in flight).
      const inFlight = new Set<Promise<void>>();
      while (Date.now() - start < SECONDS * 1000) {
        const due = start + (calls * 1000) / PER_SECOND;
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (inFlight.size >= 64) await Promise.race(inFlight);
        calls++;
        const p: Promise<void> = (client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } }) as Promise<CallToolResult>).then((r) => {
          inFlight.delete(p);
          maxLevel = Math.max(maxLevel, metaDecision(r)?.threatLevel ?? 0);
          if (r.isError) refused.push(text(r).split('\n').slice(0, 2).join(' '));
        });
        inFlight.add(p);
      }
      await Promise.all(inFlight);
      const elapsed = (Date.now() - start) / 1000;
      // The rate reached: the test proves nothing if the machine could not keep the pace.
      expect(calls / elapsed).toBeGreaterThan(PER_SECOND * 0.9);
    } finally {
      await client.close();
    }
    expect(refused.slice(0, 3), `${refused.length} of ${calls} refused`).toEqual([]);
    expect(maxLevel).toBe(0);
    const list = spawnSync(process.execPath, [CLI, 'agents', 'list', '--quarantined', '--store', store], { encoding: 'utf8' });
    expect(list.stdout).not.toMatch(/scripted/);
  }, 120_000);
});
