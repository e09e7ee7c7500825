#!/usr/bin/env node
/**
 * A small real MCP mail server over stdio: an inbox seeded from a JSON file (which may hold injected
 * instructions, as real mail does), reading, and sending by appending to an outbox JSONL file.
 *
 *   node dist/servers/mail.js --inbox <inbox.json> [--outbox <outbox.jsonl>]   (or MAIL_INBOX / MAIL_OUTBOX)
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { argValue, runUntilClosed, textResult } from './common.js';

/** One message in the inbox file. */
export const EmailSchema = z.object({
  id: z.string(),
  from: z.string(),
  to: z.string().default('me'),
  subject: z.string().default(''),
  body: z.string().default(''),
  date: z.string().optional(),
});
export type Email = z.infer<typeof EmailSchema>;

/** Builds the mail server over an inbox and an outbox file. */
export function createMailServer(inbox: Email[], outboxFile: string): McpServer {
  const server = new McpServer({ name: 'mail', version: '0.1.0' });
  const find = (id: string) => {
    const m = inbox.find((e) => e.id === id);
    if (!m) throw new Error(`no email with id "${id}"`);
    return m;
  };
  const render = (m: Email) => `From: ${m.from}\nTo: ${m.to}\nSubject: ${m.subject}\n${m.date ? `Date: ${m.date}\n` : ''}\n${m.body}`;

  server.registerTool('list_inbox', { description: 'List the inbox (id, sender, subject)', inputSchema: {}, annotations: { readOnlyHint: true } }, async () =>
    textResult(inbox.map((m) => `${m.id}\t${m.from}\t${m.subject}`).join('\n')),
  );
  server.registerTool('read_email', { description: 'Read one email by id', inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } }, async ({ id }) => textResult(render(find(id))));
  server.registerTool('send_email', { description: 'Send an email', inputSchema: { to: z.string(), subject: z.string(), body: z.string() }, annotations: { openWorldHint: true } }, async ({ to, subject, body }) => {
    appendFileSync(outboxFile, `${JSON.stringify({ to, subject, body, date: new Date().toISOString() })}\n`);
    return textResult(`sent to ${to}`);
  });
  server.registerResource('inbox', 'mail://inbox', { description: 'The whole inbox as JSON', mimeType: 'application/json' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(inbox, null, 2) }],
  }));
  server.registerResource('message', new ResourceTemplate('mail://messages/{id}', { list: undefined }), { description: 'One email', mimeType: 'text/plain' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: render(find(String(id))) }],
  }));
  return server;
}

const isMain = process.argv[1] !== undefined && /mail\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  const inboxFile = argValue('--inbox') ?? process.env.MAIL_INBOX;
  if (!inboxFile) {
    process.stderr.write('mail: give --inbox <file.json> or MAIL_INBOX\n');
    process.exit(2);
  }
  const inbox = z.array(EmailSchema).parse(JSON.parse(readFileSync(inboxFile, 'utf8')));
  const outbox = resolve(argValue('--outbox') ?? process.env.MAIL_OUTBOX ?? join(dirname(resolve(inboxFile)), 'outbox.jsonl'));
  await runUntilClosed(createMailServer(inbox, outbox), new StdioServerTransport());
}
