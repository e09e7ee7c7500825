/**
 * Red team: a dangling symbolic link inside the sandbox whose target is outside. Writing through it creates the
 * target, outside. The built CLI runs a book that forbids writing outside the sandbox in front of the workspace
 * server (servers/workspace.ts, whose write_file really writes); the planted file must not appear. Before the path
 * detector followed dangling links it resolved the link's parent and kept the link's own name: "inside", allowed,
 * and the file was planted.
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaDecision } from '../e2e/helpers.js';
import { connectStdio, server, writeConfig } from '../support/proxy-harness.js';

const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-dangling-')));
const sandbox = join(dir, 'sandbox');
const outside = join(dir, 'outside');

function writeBook(): string {
  const book = join(dir, 'book');
  mkdirSync(book);
  const yaml = `name: no-write-outside
version: "1.0.0"
predicates:
  - name: write_operation
    description: The call writes a file.
    keywords: [write, file]
    scope: action
    tools: ['*__write_file']
    detectors:
      - { type: tool, match: ['*__write_file'], kinds: [tool_call] }
  - name: target_outside_sandbox
    description: A file the call acts on lies outside the sandbox, symbolic links followed.
    keywords: [path, outside sandbox]
    scope: action
    tools: ['*__write_file']
    detectors:
      - { type: path, field: arguments, under: ['${sandbox}'], outside: true }
rules:
  - id: no-write-outside-sandbox
    text: Files are written only inside the sandbox.
    applies_to: [tool_call]
    formula: '!(write_operation & target_outside_sandbox)'
    severity: high
    hard: true
`;
  writeFileSync(join(book, 'book.yaml'), yaml);
  return book;
}

describe('red team: writing through a dangling link that points outside the sandbox', () => {
  let client: Client;
  const write = (path: string) => client.callTool({ name: 'ws__write_file', arguments: { path, content: 'planted' } }) as Promise<CallToolResult>;

  beforeAll(async () => {
    mkdirSync(sandbox);
    mkdirSync(outside);
    symlinkSync(join(outside, 'planted.txt'), join(sandbox, 'absolute-link'));
    symlinkSync('../outside/planted-rel.txt', join(sandbox, 'relative-link'));
    symlinkSync(join(sandbox, 'relative-link'), join(sandbox, 'chained-link'));
    symlinkSync('inside-new.txt', join(sandbox, 'inside-link'));
    const config = writeConfig(dir, {
      servers: { ws: server('workspace', '--root', sandbox) },
      policy: writeBook(),
      store: join(dir, 'state.db'),
      guard: { watcher: { quarantine: false } },
    });
    client = (await connectStdio(config)).client;
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is denied for an absolute, a relative and a chained link, and nothing is planted outside', async () => {
    // Absolute paths: a relative one would be denied anyway (the server's working directory is outside the sandbox).
    for (const link of ['absolute-link', 'relative-link', 'chained-link']) {
      const r = await write(join(sandbox, link));
      expect(r.isError, `${link}: ${JSON.stringify(r)}`).toBe(true);
      expect(metaDecision(r)?.rules).toContain('no-write-outside-sandbox');
    }
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
    expect(existsSync(join(outside, 'planted-rel.txt'))).toBe(false);
  });

  it('control: a dangling link that stays inside the sandbox is written through', async () => {
    const r = await write(join(sandbox, 'inside-link'));
    expect(r.isError, JSON.stringify(r)).toBeFalsy();
    expect(existsSync(join(sandbox, 'inside-new.txt'))).toBe(true);
  });
});
