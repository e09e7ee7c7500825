import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../core/version.js';
import { InstallError } from './errors.js';
import { writeAtomic } from './fs-safe.js';

/** The files `quadguard init` writes, relative to its folder. */
export const INIT_CONFIG = 'quadguard.config.yaml';
export const INIT_POLICY_DIR = 'quadguard-policy';
const POLICY_FILES = ['book.yaml', 'policy.md'] as const;

/** The starter config text: one sandboxed workspace server, the shipped default book, a store and agents. */
export function starterConfig(packageRoot: string = PACKAGE_ROOT): string {
  const q = (s: string) => JSON.stringify(s); // JSON strings are valid YAML double-quoted scalars (Windows paths too).
  return `# QuadGuard configuration (written by \`quadguard init\`). Relative paths are resolved against this file's folder.
#   quadguard serve --config ${INIT_CONFIG}                  # stdio, for Claude Desktop, Cursor, VS Code, ...
#   quadguard serve --config ${INIT_CONFIG} --http 8787      # Streamable HTTP on /mcp, SSE on /sse
# Register existing host servers instead: quadguard install --client cursor --all

servers:
  workspace:                        # tools appear as workspace__read_file, workspace__write_file, ...
    command: node                   # executable and arguments separately, never one string
    args: [${q(join(packageRoot, 'dist', 'servers', 'workspace.js'))}, --root, quadguard-sandbox]
    cwd: .                          # the sandbox folder is created next to this file
    env: {}                         # the server gets HOME, LOGNAME, PATH, SHELL, TERM, USER plus exactly these
    tools:
      deny: [delete_*]              # hidden from tools/list and refused in tools/call
  # files:                          # the reference filesystem server on a sandbox folder
  #   command: npx
  #   args: [-y, "@modelcontextprotocol/server-filesystem", /tmp/quadguard-sandbox]
  # remote:
  #   url: http://127.0.0.1:9000/mcp
  #   transport: http               # or sse

# The shipped default policy book. To change the rules, edit your copy and point here instead:
#   policy: ${INIT_POLICY_DIR}      # then: quadguard policy check ${INIT_POLICY_DIR}
policy: ${q(join(packageRoot, 'policies', 'default'))}

store: .quadguard/state.db          # state and the append-only audit log (SQLite)

agents:
  local:                            # stdio: quadguard serve --agent local
    profile: { role: assistant }
  # planner:                        # HTTP: "Authorization: Bearer $PLANNER_TOKEN" identifies the planner
  #   token: { env: PLANNER_TOKEN } # read from the environment at start-up (at least 16 characters)
  #   profile: { role: planner }
`;
}

/** What init wrote. */
export interface InitReport {
  config: string;
  policyDir: string;
  files: string[];
}

/**
 * Writes `quadguard.config.yaml` and a `quadguard-policy/` copy of the default book into `dir`. Refuses to
 * overwrite either unless `force` (`install_exists`, naming the file).
 *
 * @example
 * initProject({ dir: '.', force: false });
 */
export function initProject(opts: { dir: string; force?: boolean | undefined; packageRoot?: string | undefined }): InitReport {
  const root = opts.packageRoot ?? PACKAGE_ROOT;
  const dir = resolve(opts.dir);
  const config = join(dir, INIT_CONFIG);
  const policyDir = join(dir, INIT_POLICY_DIR);
  const targets = [config, ...POLICY_FILES.map((f) => join(policyDir, f))];
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
  return { config, policyDir, files: targets };
}
