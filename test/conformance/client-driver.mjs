#!/usr/bin/env node
/**
 * The "client" the conformance suite's client scenarios drive: QuadGuard's downstream side. The suite starts a
 * scenario server and runs `node client-driver.mjs <server-url>`; this starts `quadguard serve` (stdio, default
 * policy) with that server as its only downstream (names kept), connects an SDK client to QuadGuard, lists the
 * tools and calls each one. What the scenario server sees is QuadGuard acting as an MCP client: its initialize,
 * its tools/call, its answer to elicitation (carried to this client, which accepts with the defaults applied by
 * the SDK), its SSE reconnection, its OAuth client_credentials flow (auth/client-credentials-basic and
 * auth/client-credentials-jwt, with the client secret or private key the suite passes in MCP_CONFORMANCE_CONTEXT).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const url = process.argv[process.argv.length - 1];
const dir = mkdtempSync(join(tmpdir(), 'qg-conf-client-'));
const cfg = join(dir, 'quadguard.json');
// Auth scenarios that hand the client credentials (client_credentials grant: a client secret, or a private key for a
// signed JWT assertion) get them as QuadGuard's `oauth` for the server.
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
const oauth =
  typeof context.client_id !== 'string'
    ? {}
    : typeof context.client_secret === 'string'
      ? { oauth: { client_id: context.client_id, client_secret: { value: context.client_secret } } }
      : typeof context.private_key_pem === 'string'
        ? { oauth: { client_id: context.client_id, private_key: { value: context.private_key_pem }, algorithm: context.signing_algorithm } }
        : {};
writeFileSync(cfg, JSON.stringify({ servers: { scenario: { url, namespace: false, ...oauth } }, policy: join(ROOT, 'policies', 'default'), store: join(dir, 'state.db') }));

const transport = new StdioClientTransport({ command: process.execPath, args: [join(ROOT, JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).bin.quadguard), 'serve', '--config', cfg], stderr: 'inherit', env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn' } });
const client = new Client({ name: 'quadguard-conformance-driver', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: { form: { applyDefaults: true } } } });
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: {} }));
client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'driver', content: { type: 'text', text: 'ok' } }));
const ARGS = { add_numbers: { a: 5, b: 3 } };
try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  for (const t of tools) {
    if (t.name === 'guard_check_message') continue;
    const r = await client.callTool({ name: t.name, arguments: ARGS[t.name] ?? {} });
    process.stderr.write(`driver: ${t.name} -> ${JSON.stringify(r.content).slice(0, 200)}\n`);
  }
} finally {
  await client.close().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
