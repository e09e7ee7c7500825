import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../core/version.js';
import { ClientNameSchema } from './clients.js';
import { InstallError } from './errors.js';
import { writeAtomic } from './fs-safe.js';

/** The files `quadguard init` writes, relative to its folder. */
export const INIT_CONFIG = 'quadguard.config.yaml';
export const INIT_POLICY_DIR = 'quadguard-policy';
const POLICY_FILES = ['book.yaml', 'policy.md'] as const;

/** The HTTP agent init creates, and its token file (relative to the config). */
export const INIT_AGENT = 'assistant';
/**
 * The stdio agents init declares: \`local\` (serve's default) and one per client \`install\` knows, named as install
 * names them (\`--agent claude-code\`, …), so the README's client entries and installed entries start against this
 * config. test/e2e/readme-clients.test.ts checks the README uses only these names, and starts its entries.
 */
export const INIT_STDIO_AGENTS = ['local', ...ClientNameSchema.options] as const;
export const INIT_TOKEN_FILE = `.quadguard/${INIT_AGENT}.token`;

/**
 * The starter config text: one sandboxed workspace server, the editable policy copy, a store next to the config,
 * a stdio agent and an HTTP agent whose token lives in a 0600 file.
 */
export function starterConfig(packageRoot: string = PACKAGE_ROOT): string {
  const q = (s: string) => JSON.stringify(s); // JSON strings are valid YAML double-quoted scalars (Windows paths too).
  return `# QuadGuard configuration (written by \`quadguard init\`). Relative paths are resolved against this file's folder,
# and stdio servers run in this folder unless they set cwd. Reference: docs/configuration.md.
#   quadguard serve                         # stdio (Claude Desktop, Cursor, VS Code, ...); run from this folder,
#                                           # or: quadguard serve --config /path/to/${INIT_CONFIG}
#   quadguard serve --http 8787             # Streamable HTTP on /mcp, SSE on /sse; clients send
#                                           # "Authorization: Bearer <the token in ${INIT_TOKEN_FILE}>"
#   quadguard status                        # where the store, policy and token are

servers:
  workspace:                        # tools appear as workspace__read_file, workspace__write_file, ...
    command: node                   # executable and arguments separately, never one string
    args: [${q(join(packageRoot, 'dist', 'servers', 'workspace.js'))}, --root, quadguard-sandbox]
    env: {}                         # the server gets HOME, LOGNAME, PATH, SHELL, TERM, USER plus exactly these
    tools:
      deny: [delete_*]              # hidden from tools/list and refused in tools/call
  # files:                          # the reference filesystem server on a sandbox folder
  #   command: npx
  #   args: [-y, "@modelcontextprotocol/server-filesystem", quadguard-sandbox]
  # remote:
  #   url: http://127.0.0.1:9000/mcp
  #   transport: http               # or sse

policy: ${INIT_POLICY_DIR}               # your copy of the default book; after editing: quadguard policy check ${INIT_POLICY_DIR}

store: .quadguard/state.db          # state and the append-only audit log (SQLite); \`quadguard audit tail\` from this folder reads it

agents:                             # stdio clients name themselves with --agent; each is its own identity
  local:                            # quadguard serve (the default --agent)
    profile: { role: assistant }
${ClientNameSchema.options.map((c) => `  ${c}:${' '.repeat(Math.max(1, 33 - c.length))}# quadguard serve --agent ${c} (the name install gives it)\n    profile: { role: assistant }\n`).join('')}  ${INIT_AGENT}:                        # HTTP: the bearer token in ${INIT_TOKEN_FILE} (mode 0600) identifies this agent
    token: { file: ${INIT_TOKEN_FILE} }
    profile: { role: assistant }
  # planner:                        # another HTTP agent, token from the environment (at least 16 characters)
  #   token: { env: PLANNER_TOKEN }
  #   profile: { role: planner }
`;
}

/** What init wrote. */
export interface InitReport {
  config: string;
  policyDir: string;
  /** The HTTP agent's token file (mode 0600). */
  tokenFile: string;
  files: string[];
}

/**
 * Writes `quadguard.config.yaml`, a `quadguard-policy/` copy of the default book and a random HTTP agent token
 * (`.quadguard/assistant.token`, mode 0600) into `dir`. Refuses to overwrite any of them unless `force` (`install_exists`, naming the file).
 *
 * @example
 * initProject({ dir: '.', force: false });
 */
export function initProject(opts: { dir: string; force?: boolean | undefined; packageRoot?: string | undefined }): InitReport {
  const root = opts.packageRoot ?? PACKAGE_ROOT;
  const dir = resolve(opts.dir);
  const config = join(dir, INIT_CONFIG);
  const policyDir = join(dir, INIT_POLICY_DIR);
  const tokenFile = join(dir, INIT_TOKEN_FILE);
  const targets = [config, ...POLICY_FILES.map((f) => join(policyDir, f)), tokenFile];
  if (!opts.force) {
    const present = targets.filter((t) => existsSync(t));
    if (present.length > 0) throw new InstallError('install_exists', `${present.join(', ')} already exist${present.length === 1 ? 's' : ''}; pass --force to overwrite`, { location: { file: present[0]! } });
  }
  mkdirSync(policyDir, { recursive: true });
  writeAtomic(config, starterConfig(root));
  for (const f of POLICY_FILES) {
    try {
      copyFileSync(join(root, 'policies', 'default', f), join(policyDir, f));
    } catch (err) {
      throw new InstallError('install_io', `cannot copy the default policy's ${f}: ${(err as Error).message}`, { cause: err });
    }
  }
  try {
    mkdirSync(dirname(tokenFile), { recursive: true, mode: 0o700 });
    rmSync(tokenFile, { force: true });
    writeFileSync(tokenFile, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw new InstallError('install_io', `cannot write the agent token ${tokenFile}: ${(err as Error).message}`, { cause: err });
  }
  return { config, policyDir, tokenFile, files: targets };
}
