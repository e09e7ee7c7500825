import { resolve } from 'node:path';
import { type Command, Option } from 'commander';
import { errorMessage } from '../core/errors.js';
import { ClientNameSchema, InstallError, initProject, installClient, uninstallClient, type ClientName, type RegisterReport, type Scope, type Selection } from '../install/index.js';

/** Flags shared by install and uninstall. */
interface RegisterFlags {
  client: ClientName;
  server?: string[];
  all?: boolean;
  configFile?: string;
  scope?: Scope;
  dryRun?: boolean;
}

function selection(o: RegisterFlags): Selection {
  if (o.all && o.server) throw new InstallError('install_usage', 'give either --server NAME or --all, not both');
  return o.all ? { all: true } : o.server ? { names: o.server } : undefined;
}

/** Prints a report; returns the exit code (2 when the user must choose servers). */
function printReport(r: RegisterReport, verb: 'wrap' | 'restore', dryRun: boolean): number {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  if (r.listing) {
    out(`servers in ${r.file}:`);
    for (const s of r.listing) out(`  ${s.name}  (${s.kind})${s.note ? `  ${s.note}` : ''}`);
    if (r.listing.length === 0) out('  (none)');
    process.stderr.write(`quadguard: choose what to ${verb}: --server NAME (repeatable) or --all\n`);
    return 2;
  }
  if (r.diff) out(r.diff.trimEnd());
  for (const n of r.changed) out(`${dryRun ? 'would ' : ''}${verb === 'wrap' ? 'wrap' : 'restore'} ${n}`);
  for (const s of r.skipped) out(`skipped ${s.name}: ${s.reason}`);
  for (const n of r.notes) out(`note: ${n}`);
  if (r.backup) out(`backup: ${r.backup}`);
  if (r.sidecar) out(`originals: ${r.sidecar}`);
  if (r.noServers) return 1;
  if (dryRun) out('dry run: nothing written');
  else if (r.written) out(`${r.created ? 'created' : 'updated'} ${r.file}${r.changed.length > 0 ? '; restart the client to apply' : ''}`);
  else out(`nothing to change in ${r.file}`);
  return 0;
}

/** Runs a command body; InstallError `install_usage` exits 2, other errors 1, both printed as `file:line:col: code: message`. */
function run(fn: () => number): void {
  try {
    process.exitCode = fn();
  } catch (err) {
    process.stderr.write(`quadguard: ${errorMessage(err)}\n`);
    process.exitCode = err instanceof InstallError && err.code === 'install_usage' ? 2 : 1;
  }
}

function registerFlags(cmd: Command): Command {
  return cmd
    .addOption(new Option('--client <name>', 'MCP host whose config to edit').choices(ClientNameSchema.options).makeOptionMandatory())
    .option('--server <name...>', 'server entry to act on (repeatable)')
    .option('--all', 'act on every server entry')
    .option('--config-file <path>', "the client's config file (default: the client's standard location)")
    .addOption(new Option('--scope <scope>', 'project (.mcp.json, .cursor/, .vscode/) or user (home folder)').choices(['user', 'project']))
    .option('--dry-run', 'print the changes without writing anything');
}

/** Where each client keeps its file, shown under `install --help`. */
const LOCATIONS = `
Client files (project scope is the default where there is one):
  claude-desktop  macOS ~/Library/Application Support/Claude/claude_desktop_config.json,
                  Windows %APPDATA%\\Claude\\claude_desktop_config.json, Linux ~/.config/Claude/claude_desktop_config.json
  claude-code     project .mcp.json; user ~/.claude.json (top-level mcpServers; everything else kept)
  cursor          project .cursor/mcp.json; user ~/.cursor/mcp.json (JSONC)
  vscode          project .vscode/mcp.json; user <Code user folder>/mcp.json (JSONC, key "servers")
A backup <file>.bak-<time> is made before any change (only the newest is kept); the originals are kept in <file>.quadguard.json for uninstall.`;

/** Registers `init`, `install` and `uninstall` on the program. */
export function registerInstallCommands(program: Command): void {
  program
    .command('init')
    .description('Write a starter quadguard.config.yaml, an editable copy of the default policy (quadguard-policy/) and an HTTP agent token (.quadguard/assistant.token, mode 0600)')
    .option('--dir <dir>', 'folder to write into', '.')
    .option('--force', 'overwrite existing files')
    .action((o: { dir: string; force?: boolean }) =>
      run(() => {
        const r = initProject({ dir: o.dir, force: o.force });
        const here = resolve(o.dir) === process.cwd();
        const cfg = here ? '' : ` --config ${r.config}`;
        process.stdout.write(
          `wrote ${r.files.join('\n      ')}\n\nnext steps${here ? ' (from this folder)' : ''}:\n` +
            `  quadguard status${cfg}                    # where the store, policy and token are\n` +
            `  quadguard serve${cfg}                     # stdio: register this command in your MCP client\n` +
            `  quadguard serve${cfg} --http 8787         # HTTP: clients send "Authorization: Bearer $(cat ${r.tokenFile})"\n` +
            `  quadguard audit tail${cfg}                # the decisions so far\n` +
            `  edit ${r.policyDir}/book.yaml, then: quadguard policy check ${r.policyDir}\n`,
        );
        return 0;
      }),
    );

  registerFlags(program.command('install'))
    .description("Route a client's stdio MCP servers through QuadGuard (rewrites them to `quadguard wrap … -- <command>`)")
    .option('--policy <path>', 'policy book for the wrapped servers (default: the shipped policies/default)')
    .option('--use-npx', 'launch QuadGuard with `npx -y quadguard` (only for a registry install: the name is not published on npm yet, so npx would fail or fetch someone else\'s package)')
    .addHelpText('after', LOCATIONS)
    .action((o: RegisterFlags & { policy?: string; useNpx?: boolean }) =>
      run(() => printReport(installClient({ client: o.client, scope: o.scope, configFile: o.configFile, select: selection(o), dryRun: o.dryRun, policy: o.policy, useNpx: o.useNpx }), 'wrap', !!o.dryRun)),
    );

  registerFlags(program.command('uninstall'))
    .description('Restore the original entries that install wrapped')
    .action((o: RegisterFlags) =>
      run(() => printReport(uninstallClient({ client: o.client, scope: o.scope, configFile: o.configFile, select: selection(o), dryRun: o.dryRun }), 'restore', !!o.dryRun)),
    );
}
