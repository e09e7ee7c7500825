/**
 * Red team (issue 27, classes 10 and 11): the audit as an operator reads and checks it, through the built CLI (a
 * stdio `quadguard serve` in front of servers/side-channels.ts, then `quadguard audit …` on the same store).
 * - class 10: a tool name a client makes up is stored as sent; a newline in it forged a complete-looking allow row
 *   in `audit tail`, and an ANSI escape reached the operator's terminal (fails before: both printed raw);
 * - class 11: with the key file deleted, `audit verify` warned and exited 0 although rows carry MACs (fails before).
 *   The head is now also written when the stdio client quits (stdin ended); that case is a control here: before, the
 *   head's one-second timer usually fired while the proxy stopped its servers, so it passed before too.
 * Controls: ordinary rows print as before; verify with the key passes.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/demos/kit.js';
import { alive, connectStdio, makeSandbox, ROOT, waitFor, writeConfig } from '../support/proxy-harness.js';

describe('red team: forged audit rows and a cut audit tail', () => {
  const sb = makeSandbox();
  const store = join(sb.dir, 'state.db');
  const forged = 'x\n99-deadbeef  2026-01-01T00:00:00.000Z  allow  tool_call      tester  side__wipe  nothing to see';
  const ansi = 'y\u001b[2J\u001b[31mred';

  beforeAll(async () => {
    const side = { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'side-channels.js')], env: { SIDE_OUTBOX: join(sb.dir, 'out.jsonl') }, namespace: false };
    const cfg = writeConfig(sb.dir, { servers: { side }, policy: join(ROOT, 'policies', 'default'), store, guard: { watcher: { quarantine: false } } });
    const { client, transport } = await connectStdio(cfg);
    const pid = transport.pid!;
    await expect(client.callTool({ name: forged, arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: ansi, arguments: {} })).rejects.toThrow(/Unknown tool/);
    // Several rows within a second: the head file is written at most once a second while the proxy runs.
    for (let i = 0; i < 4; i++) await client.callTool({ name: 'log_now', arguments: { text: `note ${i}` } });
    await client.close();
    await waitFor(() => !alive(pid), 15_000, 'the proxy to exit');
  }, 60_000);
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('class 10: audit tail shows a forged newline and an ANSI escape as escapes, one row each', async () => {
    const tail = await runCli(['audit', 'tail', '-n', '50', '--store', store]);
    expect(tail.code).toBe(0);
    expect(tail.stdout).not.toMatch(/^99-deadbeef/m);
    expect(tail.stdout).not.toContain('\u001b');
    expect(tail.stdout).toContain('x\\n99-deadbeef');
    expect(tail.stdout).toContain('y\\x1b[2J');
    // Control: each recorded decision is exactly one line, and ordinary rows read as before.
    const json = await runCli(['audit', 'tail', '-n', '50', '--json', '--store', store]);
    expect(tail.stdout.trim().split('\n')).toHaveLength(json.stdout.trim().split('\n').length);
    expect(tail.stdout).toMatch(/allow +tool_call +tester +side__log_now/);
    const show = await runCli(['audit', 'show', '1', '--store', store]);
    expect(show.stdout).not.toContain('\u001b');
  }, 30_000);

  it('class 11: the signed head names the last row after the stdio client quit', async () => {
    const json = await runCli(['audit', 'tail', '-n', '1', '--json', '--store', store]);
    const last = JSON.parse(json.stdout.trim()) as { id: number };
    const head = JSON.parse(readFileSync(`${store}.head`, 'utf8')) as { id: number };
    expect(head.id).toBe(last.id);
    const ok = await runCli(['audit', 'verify', '--store', store]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
  }, 30_000);

  it('class 11: with the key file deleted, audit verify exits non-zero (rows carry MACs)', async () => {
    rmSync(`${store}.key`);
    rmSync(`${store}.head`);
    const r = await runCli(['audit', 'verify', '--store', store]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/carry MACs, but no audit key is at hand/);
  }, 30_000);
});
