/**
 * Red team (#27, class 13): secrets the agent reads reach the model. server-filesystem with a broad root (a fake home
 * with an SSH key, an app with a .env) behind the built CLI and the default book: reading `~/.ssh/id_rsa` or `.env`
 * returned the key in clear (fails before). Now a read of a well-known credential file is held for approval
 * (`hold-credential-file-read`, also through a symbolic link and a resource URI), a credential in any other file is
 * masked before the client gets it (`mask-secrets-in-results`), and the audit records the mask, never the secret.
 * Controls: an ordinary file, a README that names `.env`, a `.env.example` with placeholders pass unchanged, and
 * writing a project's `.env` is not held.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '../../src/store/sqlite.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metaDecision } from '../e2e/helpers.js';
import { CLI, connectStdio, filesystemServer, writeConfig } from '../support/proxy-harness.js';
import { bookFor } from '../support/sandbox-book.js';

const run = promisify(execFile);
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-cred-')));
const home = join(dir, 'home');
const app = join(dir, 'app');
const store = join(dir, 'state.db');

// Pieces joined at run time, so no scanner takes this file for one holding credentials.
const KEY_BODY = ['b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW', 'QyNTUxOQAAACDk7vQ3xR9pL2mZ8sYwJhT4nB6cV1aE0fK5gU3iO7tR2wAAAJgq8Hn1Kv'].join('\n');
const KEY = ['-----BEGIN OPENSSH PRIVATE KEY-----', KEY_BODY, '-----END OPENSSH PRIVATE KEY-----', ''].join('\n');
const STRIPE = ['sk', 'live', '4eC39HqLyjWDarjtT1zdp7dcQx'].join('_');
const DB_PASSWORD = 'Tr0ub4dor-9xq';

let client: Client;
let close: () => Promise<void>;

const textOf = (r: unknown): string => ((r as CallToolResult).content ?? []).map((b) => (b.type === 'text' ? b.text : JSON.stringify(b))).join('\n');
const held = (r: unknown): boolean => (r as CallToolResult).isError === true && (metaDecision(r)?.rules ?? []).includes('hold-credential-file-read');
const read = (path: string) => client.callTool({ name: 'fs__read_text_file', arguments: { path } });

beforeAll(async () => {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  mkdirSync(app);
  writeFileSync(join(home, '.ssh', 'id_rsa'), KEY);
  writeFileSync(join(home, '.ssh', 'id_rsa.pub'), 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl me@laptop\n');
  writeFileSync(join(app, '.env'), `STRIPE_KEY=${STRIPE}\nDB_PASSWORD=${DB_PASSWORD}\n`);
  writeFileSync(join(app, '.env.example'), 'STRIPE_KEY=your_stripe_key_here\nDB_PASSWORD=changeme\n');
  writeFileSync(join(app, 'README.md'), '# App\n\nCopy `.env.example` to `.env` and put your Stripe key there; never commit `.env` or `~/.ssh/id_rsa`.\n');
  writeFileSync(join(app, 'deploy-notes.txt'), `Deploy with the key below.\n${KEY}\nand the database password=${DB_PASSWORD}\nThen restart.\n`);
  writeFileSync(join(app, 'notes.txt'), 'Standup at 10. Ship the invoice export.\n');
  symlinkSync(join(home, '.ssh', 'id_rsa'), join(app, 'innocent.txt'));
  const fs = filesystemServer(dir);
  const config = writeConfig(dir, {
    servers: { fs: { command: fs.command, args: fs.args } },
    policy: bookFor(dir, app),
    store,
    guard: { watcher: { quarantine: false } },
  });
  const c = await connectStdio(config, 'reader');
  client = c.client;
  close = () => c.client.close();
}, 60_000);

afterAll(async () => {
  await close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe('red team: credentials the agent reads', () => {
  it('a read of ~/.ssh/id_rsa, of .env, of a link to the key is held; the key never reaches the client', async () => {
    for (const path of [join(home, '.ssh', 'id_rsa'), join(app, '.env'), join(app, 'innocent.txt')]) {
      const r = await read(path);
      expect(held(r), `${path}: ${textOf(r)}`).toBe(true);
      expect(textOf(r)).toMatch(/quadguard approve ap_[0-9a-f]+/);
      expect(textOf(r)).not.toContain(KEY_BODY.slice(0, 20));
      expect(textOf(r)).not.toContain(STRIPE);
    }
    const r = await client.callTool({ name: 'fs__read_multiple_files', arguments: { paths: [join(app, 'notes.txt'), join(home, '.ssh', 'id_rsa')] } });
    expect(held(r), textOf(r)).toBe(true);
  }, 60_000);

  it('a credential in an ordinary-named file is masked before it reaches the client, and the audit records the mask', async () => {
    const r = await read(join(app, 'deploy-notes.txt'));
    expect(r.isError, textOf(r)).toBeFalsy();
    const t = textOf(r);
    expect(t).toContain('Deploy with the key below.');
    expect(t).toContain('Then restart.');
    expect(t).toContain('[REDACTED by QuadGuard');
    expect(t).not.toContain(KEY_BODY.slice(0, 20));
    expect(t).not.toContain(DB_PASSWORD);
    expect(metaDecision(r)?.rules ?? []).toContain('mask-secrets-in-results');
  }, 60_000);

  it('approved once, the key file is read, still masked', async () => {
    const first = await read(join(home, '.ssh', 'id_rsa'));
    const id = /quadguard approve (ap_[0-9a-f]+)/.exec(textOf(first))?.[1];
    expect(id, textOf(first)).toBeDefined();
    await run(process.execPath, [CLI, 'approve', id!, '--by', 'ann', '--store', store]);
    const r = await read(join(home, '.ssh', 'id_rsa'));
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(textOf(r)).toContain('[REDACTED by QuadGuard');
    expect(textOf(r)).not.toContain(KEY_BODY.slice(0, 20));
  }, 60_000);

  it('control: ordinary files, a README that names .env, a .env.example with placeholders and a public key pass unchanged', async () => {
    const cases: Array<[string, string]> = [
      [join(app, 'notes.txt'), 'Standup at 10. Ship the invoice export.\n'],
      [join(app, 'README.md'), '# App\n\nCopy `.env.example` to `.env` and put your Stripe key there; never commit `.env` or `~/.ssh/id_rsa`.\n'],
      [join(app, '.env.example'), 'STRIPE_KEY=your_stripe_key_here\nDB_PASSWORD=changeme\n'],
    ];
    for (const [path, want] of cases) {
      const r = await read(path);
      expect(r.isError, `${path}: ${textOf(r)}`).toBeFalsy();
      expect(textOf(r)).toBe(want);
      expect(metaDecision(r)?.rules ?? []).toEqual([]);
    }
    // Writing a project's .env is ordinary set-up (a write tool reads no credential file).
    const w = await client.callTool({ name: 'fs__write_file', arguments: { path: join(app, '.env'), content: 'PORT=3000\n' } });
    expect(w.isError, textOf(w)).toBeFalsy();
    const pub = await read(join(home, '.ssh', 'id_rsa.pub'));
    expect(pub.isError, textOf(pub)).toBeFalsy();
    expect(textOf(pub)).toContain('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5');
  }, 60_000);

  it('the audit store holds no credential that was read, and says what was masked', async () => {
    const db = openDatabase(store, { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM audit').all() as Array<Record<string, unknown>>;
      const all = JSON.stringify([rows, db.prepare('SELECT coalesce(i.body, b.body) AS body FROM audit_interaction i LEFT JOIN audit_body b ON b.digest = i.body_digest').all()]);
      expect(all).not.toContain(KEY_BODY.slice(0, 20));
      expect(all).not.toContain(STRIPE);
      expect(all).not.toContain(DB_PASSWORD);
      const masked = rows.filter((row) => JSON.stringify(row).includes('mask-secrets-in-results'));
      expect(masked.length).toBeGreaterThan(0);
      expect(JSON.stringify(masked)).toMatch(/redacted per rule `mask-secrets-in-results`/);
    } finally {
      db.close();
    }
  });
});
