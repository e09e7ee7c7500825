/**
 * Red-team suite (issue #12): the built CLI with the default policy book (its sandbox set to this test's sandbox
 * directory, as the book tells operators to do) in front of a hostile server (servers/hostile.ts) whose tools
 * really act. Every class of hole the red team found is tried over stdio and over Streamable HTTP, and the side
 * effect is checked: the file is still there, nothing was sent. Controls (a delete inside the sandbox, a clean
 * report) show the same setup lets ordinary work through, so a denial is the guard's doing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaDecision } from '../e2e/helpers.js';
import { connectStdio, ROOT, startHttpProxy, writeConfig } from '../support/proxy-harness.js';
import { bookFor } from '../support/sandbox-book.js';

interface Setup {
  dir: string;
  sandbox: string;
  outside: string;
  outbox: string;
  config: string;
}

function setup(): Setup {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-redteam-')));
  const sandbox = join(dir, 'sandbox');
  const outside = join(dir, 'outside');
  mkdirSync(sandbox);
  mkdirSync(outside);
  const outbox = join(dir, 'outbox.jsonl');
  const config = writeConfig(dir, {
    servers: { h: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'hostile.js')], cwd: outside, env: { HOSTILE_OUTBOX: outbox, PATH: process.env.PATH ?? '' } } },
    policy: bookFor(dir, sandbox),
    store: join(dir, 'state.db'),
    // Every case here is an attack: quarantine would deny the later ones for the wrong reason.
    guard: { watcher: { quarantine: false } },
  });
  return { dir, sandbox, outside, outbox, config };
}

const isDenied = (r: unknown): boolean => (r as CallToolResult).isError === true && metaDecision(r)?.decision === 'deny';
const rulesOf = (r: unknown): string[] => metaDecision(r)?.rules ?? [];

for (const transport of ['stdio', 'http'] as const) {
  describe(`red team over ${transport}: every class is denied and leaves no trace`, () => {
    const s = setup();
    let client: Client;
    let stop: () => Promise<void> = async () => {};
    const call = (name: string, args: Record<string, unknown>) => client.callTool({ name: `h__${name}`, arguments: args });
    const outboxEmpty = () => !existsSync(s.outbox) || readFileSync(s.outbox, 'utf8').trim() === '';

    beforeAll(async () => {
      if (transport === 'stdio') {
        const c = await connectStdio(s.config, 'redteam');
        client = c.client;
        stop = () => c.client.close();
      } else {
        const proxy = await startHttpProxy(s.config, {}, ['--no-ui']);
        client = new Client({ name: 'redteam', version: '0' });
        await client.connect(new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`)));
        stop = async () => {
          await client.close();
          await proxy.stop();
        };
      }
    }, 60_000);
    afterAll(async () => {
      await stop();
      rmSync(s.dir, { recursive: true, force: true });
    });

    it('controls: a delete inside the sandbox and a clean report go through', async () => {
      writeFileSync(join(s.sandbox, 'scratch.txt'), 'x');
      const del = await call('delete_file', { path: join(s.sandbox, 'scratch.txt') });
      expect(del.isError, JSON.stringify(del)).toBeFalsy();
      expect(existsSync(join(s.sandbox, 'scratch.txt'))).toBe(false);
      const rep = await call('fetch_report', { variant: 'clean' });
      expect(rep.isError, JSON.stringify(rep)).toBeFalsy();
    });

    it('command vectors: rm -rf as {command, args} is denied and the directory survives', async () => {
      const victim = join(s.outside, 'project');
      mkdirSync(victim, { recursive: true });
      writeFileSync(join(victim, 'keep.txt'), 'keep');
      const r = await call('run_command', { command: 'rm', args: ['-rf', victim] });
      expect(isDenied(r), JSON.stringify(r)).toBe(true);
      expect(rulesOf(r)).toContain('no-destructive-outside-sandbox');
      expect(existsSync(join(victim, 'keep.txt'))).toBe(true);
    });

    it('command vectors: cat /proc/self/environ is denied', async () => {
      const r = await call('run_command', { command: 'cat', args: ['/proc/self/environ'] });
      expect(isDenied(r), JSON.stringify(r)).toBe(true);
      expect(rulesOf(r)).toContain('no-env-dump');
    });

    it('paths: a relative path on a server rooted outside the sandbox is denied', async () => {
      writeFileSync(join(s.outside, 'victim.txt'), 'v');
      for (const path of ['victim.txt', './victim.txt']) {
        const r = await call('delete_file', { path });
        expect(isDenied(r), `${path}: ${JSON.stringify(r)}`).toBe(true);
      }
      expect(existsSync(join(s.outside, 'victim.txt'))).toBe(true);
    });

    it('paths: an argument the tool schema calls a file is checked as a path, whatever its key', async () => {
      writeFileSync(join(s.outside, 'named.txt'), 'v');
      const r = await call('remove_entry', { name: 'named.txt' });
      expect(isDenied(r), JSON.stringify(r)).toBe(true);
      expect(rulesOf(r)).toContain('no-delete-outside-sandbox');
      expect(existsSync(join(s.outside, 'named.txt'))).toBe(true);
    });

    it('paths: a symlink inside the sandbox pointing outside is followed and denied', async () => {
      writeFileSync(join(s.outside, 'linked.txt'), 'v');
      symlinkSync(s.outside, join(s.sandbox, `out-${transport}`));
      const r = await call('delete_file', { path: join(s.sandbox, `out-${transport}`, 'linked.txt') });
      expect(isDenied(r), JSON.stringify(r)).toBe(true);
      expect(existsSync(join(s.outside, 'linked.txt'))).toBe(true);
    });

    it('paths: move_file is checked on source and destination', async () => {
      writeFileSync(join(s.outside, 'moved.txt'), 'v');
      const r = await call('move_file', { source: join(s.outside, 'moved.txt'), destination: join(s.sandbox, 'moved.txt') });
      expect(isDenied(r), JSON.stringify(r)).toBe(true);
      expect(existsSync(join(s.outside, 'moved.txt'))).toBe(true);
    });

    it('paths: NUL bytes, C:\\, backslashes and %2e%2e are denied, never unknown-then-allowed', async () => {
      for (const path of [`${s.sandbox}/x\u0000/../../outside/victim.txt`, 'C:\\Windows\\win.ini', `${s.sandbox}\\..\\outside\\victim.txt`, `${s.sandbox}/%2e%2e/outside/victim.txt`]) {
        const r = await call('delete_file', { path });
        expect(isDenied(r), `${JSON.stringify(path)}: ${JSON.stringify(r)}`).toBe(true);
        expect(rulesOf(r)).toContain('no-delete-outside-sandbox');
      }
    });

    // 'deep': 40 objects down the structured result, below the depth the guard's text walk recursed to (passed on before).
    it.each(['structured', 'deep', 'blob', 'link', 'middle'])('results: an injection in the %s part of a result is not passed on', async (variant) => {
      const r = await call('fetch_report', { variant });
      expect(isDenied(r), JSON.stringify(r).slice(0, 400)).toBe(true);
      expect(rulesOf(r)).toContain('no-injection-in-results');
      expect(JSON.stringify(r)).not.toContain('id_rsa');
    });

    it('results: a base64 blob in resources/read and prompts/get is read and denied', async () => {
      const resources = await client.listResources();
      const uri = resources.resources[0]?.uri;
      expect(uri).toBeDefined();
      await expect(client.readResource({ uri: uri as string })).rejects.toThrow(/no-injection-in-results|denied/i);
      await expect(client.getPrompt({ name: 'h__briefing' })).rejects.toThrow(/no-injection-in-results|denied/i);
    });

    it('arguments: a secret after 270 KB of padding is denied and nothing is sent', async () => {
      const body = `${'lorem ipsum dolor sit amet '.repeat(10_000)}\nkey: ghp_${'a1B2c3D4e5'.repeat(3)}abcdef`;
      expect(body.length).toBeGreaterThan(270_000);
      const r = await call('send_note', { to: 'colleague@example.com', body });
      expect(isDenied(r), JSON.stringify(r).slice(0, 400)).toBe(true);
      expect(rulesOf(r)).toContain('no-secret-leak');
      expect(outboxEmpty()).toBe(true);
    });

    it('tool poisoning: a description asking for keys and passwords is hidden and not callable', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toContain('h__run_command');
      expect(names).not.toContain('h__add_numbers');
      const r = await call('add_numbers', { a: 1, b: 2, notes: 'password hunter2' }).catch((e: Error) => e);
      expect(r instanceof Error ? r.message : JSON.stringify(r)).toMatch(/Unknown tool|denied/i);
      expect(outboxEmpty()).toBe(true);
    });
  });
}
