import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { InstallError } from './errors.js';

/**
 * The four MCP hosts `quadguard install` knows: where their config file lives per scope, which top-level key
 * holds the servers, and whether the file may carry comments. Shapes follow the hosts' docs (mcp-sdk-brief §6).
 * Every schema is loose: keys QuadGuard does not know are kept as they are.
 */

export const ClientNameSchema = z.enum(['claude-desktop', 'claude-code', 'cursor', 'vscode']);
export type ClientName = z.infer<typeof ClientNameSchema>;

export const ScopeSchema = z.enum(['user', 'project']);
export type Scope = z.infer<typeof ScopeSchema>;

/** A stdio entry: `command` plus optional `args`, `env`, `cwd`; VS Code and Claude Code may add `type: "stdio"`. */
export const StdioEntrySchema = z.looseObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.unknown()).optional(),
  cwd: z.string().optional(),
});
export type StdioEntry = z.infer<typeof StdioEntrySchema>;

/** A remote entry (`url`, `type: "http" | "sse"`); QuadGuard's `wrap` guards stdio servers only. */
export const RemoteEntrySchema = z.looseObject({ url: z.string() });

/** Claude Desktop, Claude Code (`.mcp.json`, `~/.claude.json`) and Cursor: servers under `mcpServers`. */
export const McpServersFileSchema = z.looseObject({ mcpServers: z.record(z.string(), z.looseObject({})).optional() });
/** VS Code: servers under `servers`, next to `inputs`. */
export const VsCodeFileSchema = z.looseObject({
  servers: z.record(z.string(), z.looseObject({})).optional(),
  inputs: z.array(z.unknown()).optional(),
});

/** What install needs to know about one host. */
export interface ClientSpec {
  name: ClientName;
  /** Human name for messages. */
  title: string;
  /** Top-level key that holds the servers. */
  serversKey: 'mcpServers' | 'servers';
  fileSchema: typeof McpServersFileSchema | typeof VsCodeFileSchema;
  /** The host accepts `//` comments and trailing commas. */
  jsonc: boolean;
  /** The host launches stdio servers only (remote entries in its file are ignored by it). */
  stdioOnly: boolean;
  scopes: readonly Scope[];
  defaultScope: Scope;
}

export const CLIENTS: Record<ClientName, ClientSpec> = {
  'claude-desktop': { name: 'claude-desktop', title: 'Claude Desktop', serversKey: 'mcpServers', fileSchema: McpServersFileSchema, jsonc: false, stdioOnly: true, scopes: ['user'], defaultScope: 'user' },
  'claude-code': { name: 'claude-code', title: 'Claude Code', serversKey: 'mcpServers', fileSchema: McpServersFileSchema, jsonc: false, stdioOnly: false, scopes: ['project', 'user'], defaultScope: 'project' },
  cursor: { name: 'cursor', title: 'Cursor', serversKey: 'mcpServers', fileSchema: McpServersFileSchema, jsonc: true, stdioOnly: false, scopes: ['project', 'user'], defaultScope: 'project' },
  vscode: { name: 'vscode', title: 'VS Code', serversKey: 'servers', fileSchema: VsCodeFileSchema, jsonc: true, stdioOnly: false, scopes: ['project', 'user'], defaultScope: 'project' },
};

/** Where to look: injectable so tests never touch the real home folder. */
export interface Environment {
  cwd: string;
  home: string;
  platform: NodeJS.Platform;
  /** `%APPDATA%` on Windows. */
  appData?: string | undefined;
}

/** The per-user application-data folder of a desktop app (`Claude`, `Code`). */
function appDir(env: Environment, app: string): string {
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support', app);
  if (env.platform === 'win32') return join(env.appData ?? join(env.home, 'AppData', 'Roaming'), app);
  return join(env.home, '.config', app);
}

/** A resolved config file location and how to treat it when it does not exist. */
export interface ConfigLocation {
  file: string;
  scope: Scope;
  /** A missing file may be created (project scopes, and user scopes whose folder exists). */
  creatable: boolean;
}

/**
 * The client's config file for a scope, or `--config-file` when given. Claude Desktop's folder must exist (else
 * the app is probably not installed); a project-scope file is created on demand.
 */
export function locateConfig(spec: ClientSpec, opts: { scope?: Scope | undefined; configFile?: string | undefined }, env: Environment): ConfigLocation {
  const scope = opts.scope ?? spec.defaultScope;
  if (!spec.scopes.includes(scope)) {
    throw new InstallError('install_usage', `${spec.title} has no ${scope} scope; use --scope ${spec.scopes.join(' or ')}`);
  }
  if (opts.configFile !== undefined) {
    const file = resolve(env.cwd, opts.configFile);
    return { file, scope, creatable: existsSync(dirname(file)) };
  }
  let file: string;
  switch (spec.name) {
    case 'claude-desktop':
      file = join(appDir(env, 'Claude'), 'claude_desktop_config.json');
      break;
    case 'claude-code':
      file = scope === 'project' ? join(env.cwd, '.mcp.json') : join(env.home, '.claude.json');
      break;
    case 'cursor':
      file = scope === 'project' ? join(env.cwd, '.cursor', 'mcp.json') : join(env.home, '.cursor', 'mcp.json');
      break;
    case 'vscode':
      file = scope === 'project' ? join(env.cwd, '.vscode', 'mcp.json') : join(appDir(env, 'Code'), 'User', 'mcp.json');
      break;
  }
  if (spec.name === 'claude-desktop' && !existsSync(dirname(file))) {
    throw new InstallError('install_client_missing', `${spec.title} config folder ${dirname(file)} does not exist (is ${spec.title} installed?); start the app once, or pass --config-file`);
  }
  return { file, scope, creatable: scope === 'project' || existsSync(dirname(file)) };
}
