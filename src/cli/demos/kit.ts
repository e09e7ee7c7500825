/**
 * Shared pieces of the `quadguard demo` scenarios: the bundled servers and the built CLI, sandbox folders,
 * proxies started as child processes (stdio or Streamable HTTP), admin commands, and a transcript that prints
 * who said what and what the guard decided. Loopback only; nothing here touches the network.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import YAML from 'yaml';
import { CLI_ENTRY, PACKAGE_ROOT } from '../../core/version.js';

/** The bundled example servers a demo can start. */
export type BundledServerName = 'workspace' | 'mail' | 'misbehaving' | 'shifty';

/** `{command, args}` that runs a bundled server: the built .js when present, else the .ts source via tsx. */
export function bundledServer(name: BundledServerName, ...args: string[]): { command: string; args: string[] } {
  const built = join(PACKAGE_ROOT, 'dist', 'servers', `${name}.js`);
  if (existsSync(built)) return { command: process.execPath, args: [built, ...args] };
  return { command: process.execPath, args: ['--import', 'tsx', join(PACKAGE_ROOT, 'servers', `${name}.ts`), ...args] };
}

/** The built QuadGuard CLI entry (package.json `bin`). */
export function cliEntry(): string {
  return CLI_ENTRY;
}

/** The shipped default policy book. */
export function defaultPolicy(): string {
  return join(PACKAGE_ROOT, 'policies', 'default');
}

/** A fresh temp folder for one demo run. */
export function demoDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `quadguard-${name}-`));
}

/** Writes a YAML config into `dir` and returns its path. */
export function writeDemoConfig(dir: string, config: Record<string, unknown>): string {
  const file = join(dir, 'quadguard.yaml');
  writeFileSync(file, YAML.stringify(config));
  return file;
}

/** Keeps the last `max` characters of a child's stderr (read, so the pipe never fills up). */
function tail(max = 64_000): { push(chunk: Buffer): void; text(): string } {
  let s = '';
  return {
    push(chunk) {
      s = (s + chunk.toString()).slice(-max);
    },
    text: () => s,
  };
}

/** A client connected to `quadguard serve --config FILE --agent NAME` over stdio. */
export async function connectStdio(configFile: string, agent: string): Promise<{ client: Client; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliEntry(), 'serve', '--config', configFile, '--agent', agent],
    env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn' },
    stderr: 'pipe',
  });
  const err = tail();
  transport.stderr?.on('data', (c: Buffer) => err.push(c));
  const client = new Client({ name: `demo-${agent}`, version: '0.1.0' });
  await client.connect(transport);
  return { client, stderr: err.text, close: () => client.close() };
}

/** `quadguard serve --config FILE --http 0 --no-ui`, resolved with its URL once it logs the port. */
export async function startHttpProxy(configFile: string, env: Record<string, string> = {}): Promise<{ url: string; stderr: () => string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [cliEntry(), 'serve', '--config', configFile, '--http', '0', '--no-ui'], {
    env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const err = tail();
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the proxy did not start within 60 s:\n${err.text()}`)), 60_000);
    child.stderr!.on('data', (c: Buffer) => {
      err.push(c);
      // eslint-disable-next-line regexp/no-super-linear-backtracking -- the demo's own child process's log lines
      const m = /"port":(\d+)[^\n]*"msg":"http listening"/.exec(err.text());
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the proxy exited with ${code}:\n${err.text()}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    stderr: err.text,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A client connected to a proxy's Streamable HTTP endpoint with a bearer token. */
export async function connectHttp(url: string, token: string, name: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  const client = new Client({ name, version: '0.1.0' });
  await client.connect(transport);
  return client;
}

/** Runs the built CLI with `args` and collects its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliEntry(), ...args], { env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Polls `fn` until it returns true, or throws after `ms`. */
export async function waitUntil(fn: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Removes a demo folder (best effort). */
export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
