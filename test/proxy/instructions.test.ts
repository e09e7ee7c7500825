/**
 * End to end through the built CLI: the downstream servers' `instructions` reach the client. `wrap` passes the one
 * server's instructions unchanged; `serve` puts each server's under a heading with its name after QuadGuard's own
 * sentence; instructions carrying injected orders (servers/hostile.ts) are withheld, with a note the client sees,
 * a log line and an audit row.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, describe, expect, it } from 'vitest';
import { HOSTILE_INSTRUCTIONS } from '../../servers/hostile.js';
import { CLI, ROOT, connectStdio, makeSandbox, server, waitFor, writeConfig } from '../support/proxy-harness.js';

const WS_INSTRUCTIONS = 'Paths are relative to the workspace root. Call list_files to see what exists before reading.';
const hostile = { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'hostile.js')] };

async function wrapInstructions(store: string, cmd: { command: string; args: string[] }): Promise<string | undefined> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'wrap', '--store', store, '--', cmd.command, ...cmd.args], env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' });
  const client = new Client({ name: 'test', version: '0.0.0' });
  await client.connect(transport);
  try {
    return client.getInstructions();
  } finally {
    await client.close();
  }
}

describe('server instructions through the proxy', { timeout: 90_000 }, () => {
  const sb = makeSandbox();
  const storeDir = mkdtempSync(join(tmpdir(), 'qg-instr-'));
  afterAll(() => {
    rmSync(sb.dir, { recursive: true, force: true });
    rmSync(storeDir, { recursive: true, force: true });
  });

  it('wrap passes the one server\'s instructions unchanged', async () => {
    const got = await wrapInstructions(join(storeDir, 'wrap.db'), server('workspace', '--root', sb.workspace, '--instructions', WS_INSTRUCTIONS));
    expect(got).toBe(WS_INSTRUCTIONS);
  });

  it('wrap withholds poisoned instructions: the client gets a note instead, and the audit log says why', async () => {
    const store = join(storeDir, 'hostile.db');
    const got = await wrapInstructions(store, hostile);
    expect(got).toMatch(/^QuadGuard withheld the instructions of server "hostile": they carry injected instructions \(.*tool_hijack.*\)\.$/);
    expect(got).not.toContain('add_numbers');
    const tail = spawnSync(process.execPath, [CLI, 'audit', 'tail', '--store', store], { encoding: 'utf8' });
    expect(tail.stdout).toMatch(/instructions of server "hostile" withheld: they carry injected instructions/);
  });

  it('serve labels each server\'s instructions with its name, after QuadGuard\'s own, and withholds the poisoned ones', async () => {
    const cfg = writeConfig(sb.dir, {
      servers: {
        ws: server('workspace', '--root', sb.workspace, '--instructions', WS_INSTRUCTIONS),
        plain: { ...server('workspace', '--root', sb.workspace, '--instructions', 'Plain names here.'), namespace: false },
        quiet: server('workspace', '--root', sb.workspace),
        bad: hostile,
      },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
    });
    const { client, stderr } = await connectStdio(cfg);
    try {
      const got = client.getInstructions() ?? '';
      const sections = got.split('\n\n## ');
      expect(sections[0]).toMatch(/^QuadGuard proxies the tools of several MCP servers as <server>__<tool> for ws, quiet, bad/);
      expect(sections.slice(1)).toEqual([
        `Server "ws" (its tools are exposed as ws__<tool>)\n\n${WS_INSTRUCTIONS}`,
        'Server "plain"\n\nPlain names here.',
        expect.stringMatching(/^Server "bad" \(its tools are exposed as bad__<tool>\)\n\nQuadGuard withheld the instructions of server "bad": they carry injected instructions/),
      ]);
      expect(got).not.toContain(HOSTILE_INSTRUCTIONS.slice(0, 40));
      // The log line comes on stderr, another pipe than the answer: it may arrive after it.
      await waitFor(() => /instructions of server \\"bad\\" withheld/.test(stderr()), 10_000, 'the log line of the withheld instructions');
    } finally {
      await client.close();
    }
  });

  it('serve without a policy passes instructions unscreened (as it does tool descriptions)', async () => {
    const cfg = writeConfig(sb.dir, { servers: { bad: hostile }, store: join(sb.dir, 'nopolicy.db') }, 'nopolicy.yaml');
    const { client } = await connectStdio(cfg);
    try {
      expect(client.getInstructions()).toBe(HOSTILE_INSTRUCTIONS);
    } finally {
      await client.close();
    }
  });
});
