#!/usr/bin/env node
/**
 * A small real MCP server over stdio: files inside a sandbox folder, an allow-listed command runner and a
 * "publish" tool that writes to a public folder. Used by the demo, the tests and the benchmark.
 *
 *   node dist/servers/workspace.js --root <dir> [--public <dir>]     (or WORKSPACE_ROOT / WORKSPACE_PUBLIC)
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { argValue, runUntilClosed, textResult } from './common.js';

/** Commands run_command may execute (no shell; arguments passed as a list). */
export const ALLOWED_COMMANDS = ['echo', 'ls', 'cat', 'pwd', 'printenv', 'date'] as const;

/** Resolves `p` inside `root`, refusing anything that escapes it (including through symlinks). */
export function insideRoot(root: string, p: string): string {
  const full = resolve(root, p);
  const rel = relative(root, full);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`path "${p}" is outside the workspace`);
  // Check the nearest existing ancestor too, so a new file cannot be written through a linked folder.
  let probe = full;
  while (!existsSync(probe)) probe = dirname(probe);
  const real = relative(realpathSync(root), realpathSync(probe));
  if (real.startsWith('..') || isAbsolute(real)) throw new Error(`path "${p}" leaves the workspace through a link`);
  return full;
}

/** Builds the workspace server for a sandbox folder and a public folder (and `instructions` for its initialize result). */
export function createWorkspaceServer(root: string, publicDir: string, instructions?: string): McpServer {
  const server = new McpServer({ name: 'workspace', version: '0.1.0' }, instructions !== undefined ? { instructions } : {});
  const link = (rel: string) => ({ type: 'resource_link' as const, uri: `workspace://files/${encodeURIComponent(rel)}`, name: rel, mimeType: 'text/plain' });

  server.registerTool('read_file', { description: 'Read a text file in the workspace', inputSchema: { path: z.string() }, annotations: { readOnlyHint: true } }, async ({ path }) =>
    textResult(readFileSync(insideRoot(root, path), 'utf8')),
  );
  server.registerTool('write_file', { description: 'Write a text file in the workspace', inputSchema: { path: z.string(), content: z.string() } }, async ({ path, content }) => {
    const full = insideRoot(root, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
    return { content: [{ type: 'text', text: `wrote ${content.length} bytes to ${path}` }, link(relative(root, full))] };
  });
  server.registerTool('list_files', { description: 'List a folder of the workspace', inputSchema: { path: z.string().default('.') }, annotations: { readOnlyHint: true } }, async ({ path }) => {
    const full = insideRoot(root, path);
    const names = readdirSync(full).map((n) => (statSync(join(full, n)).isDirectory() ? `${n}/` : n));
    return textResult(names.sort().join('\n'));
  });
  server.registerTool('delete_file', { description: 'Delete a file in the workspace', inputSchema: { path: z.string() }, annotations: { destructiveHint: true } }, async ({ path }) => {
    rmSync(insideRoot(root, path));
    return textResult(`deleted ${path}`);
  });
  server.registerTool(
    'run_command',
    { description: `Run one allow-listed command (${ALLOWED_COMMANDS.join(', ')}) in the workspace, without a shell`, inputSchema: { command: z.enum(ALLOWED_COMMANDS), args: z.array(z.string()).default([]) } },
    async ({ command, args }) =>
      new Promise((done) =>
        execFile(command, args, { cwd: root, timeout: 5000, maxBuffer: 1 << 20 }, (err, stdout, stderr) =>
          done(err ? { ...textResult(`${command} failed: ${stderr || err.message}`), isError: true } : textResult(stdout)),
        ),
      ),
  );
  server.registerTool('publish', { description: 'Publish a text to the public folder (visible to everyone)', inputSchema: { name: z.string().regex(/^[\w.-]+$/), content: z.string() }, annotations: { openWorldHint: true } }, async ({ name, content }) => {
    writeFileSync(join(publicDir, name), content);
    return textResult(`published ${name} (${content.length} bytes)`);
  });

  server.registerResource('file', new ResourceTemplate('workspace://files/{path}', { list: undefined }), { description: 'A workspace file', mimeType: 'text/plain' }, async (uri, { path }) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: readFileSync(insideRoot(root, decodeURIComponent(String(path))), 'utf8') }],
  }));
  server.registerResource('index', 'workspace://index', { description: 'Top-level listing of the workspace', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: readdirSync(root).sort().join('\n') }],
  }));
  server.registerPrompt('summarize_file', { description: 'Ask for a summary of a workspace file', argsSchema: { path: z.string() } }, ({ path }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Summarize this file:\n\n${readFileSync(insideRoot(root, path), 'utf8')}` } }],
  }));
  return server;
}

const isMain = process.argv[1] !== undefined && /workspace\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  const root = resolve(argValue('--root') ?? process.env.WORKSPACE_ROOT ?? process.cwd());
  const publicDir = resolve(argValue('--public') ?? process.env.WORKSPACE_PUBLIC ?? join(root, 'public'));
  mkdirSync(root, { recursive: true });
  mkdirSync(publicDir, { recursive: true });
  await runUntilClosed(createWorkspaceServer(realpathSync(root), publicDir, argValue('--instructions')), new StdioServerTransport());
}
