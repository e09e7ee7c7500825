#!/usr/bin/env node
/**
 * A downstream MCP server whose tools take credentials in fields with neutral names, said to be credentials only by
 * their JSON Schema, as servers built on OpenAPI or Pydantic's `SecretStr` list them (for QuadGuard's tests of
 * credentials in context, test/e2e/schema-credentials.test.ts; not for users):
 *
 * - `connect_database {host, user, value}`: `value` is `format: password`, `writeOnly: true`;
 * - `login {account, p}`: `p` is described as "Password for the account";
 * - `save_note {text}`: keeps a note (free text).
 *
 * Each call appends one JSON line to the log file (`--log`), so a test can see what arrived.
 *
 *   node dist/servers/vault.js --log <file.jsonl>
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { argValue, runUntilClosed, textResult } from './common.js';

/** The tools, with their schemas written out (the point is what the schema says). */
export const VAULT_TOOLS: Tool[] = [
  {
    name: 'connect_database',
    description: 'Connect to a database and report its version',
    inputSchema: {
      type: 'object',
      properties: { host: { type: 'string' }, user: { type: 'string' }, value: { type: 'string', format: 'password', writeOnly: true } },
      required: ['host', 'user', 'value'],
    },
  },
  {
    name: 'login',
    description: 'Sign in to the team wiki',
    inputSchema: { type: 'object', properties: { account: { type: 'string' }, p: { type: 'string', description: 'Password for the account' } }, required: ['account', 'p'] },
  },
  {
    name: 'save_note',
    description: 'Keep a note for later',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];

/** Builds the server over a log file. */
export function createVaultServer(logFile: string): Server {
  const server = new Server({ name: 'vault', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: VAULT_TOOLS }));
  server.setRequestHandler(CallToolRequestSchema, (req) => {
    const args = req.params.arguments ?? {};
    appendFileSync(logFile, `${JSON.stringify({ tool: req.params.name, args })}\n`);
    switch (req.params.name) {
      case 'connect_database':
        return textResult(`connected to ${String(args.host)} as ${String(args.user)}: PostgreSQL 16.4`);
      case 'login':
        return textResult(`signed in as ${String(args.account)}`);
      case 'save_note':
        return textResult('note saved');
      default:
        return { isError: true, content: [{ type: 'text', text: `no tool ${req.params.name}` }] };
    }
  });
  return server;
}

const isMain = process.argv[1] !== undefined && /vault\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  const logFile = argValue('--log');
  if (!logFile) {
    process.stderr.write('vault: give --log <file.jsonl>\n');
    process.exit(2);
  }
  await runUntilClosed(createVaultServer(resolve(logFile)), new StdioServerTransport());
}
