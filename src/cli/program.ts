import { Command, CommanderError } from 'commander';
import { errorMessage } from '../core/errors.js';
import { VERSION } from '../core/version.js';

type Register = (program: Command) => unknown;

/**
 * The command modules, one file per command group, loaded only when their command runs: `quadguard --version`
 * or `policy check` must not pay for express, the MCP SDK and the proxy. Every top-level command name maps to
 * the module that registers it (keep this table sorted by module).
 */
const MODULES: Array<{ names: readonly string[]; load: () => Promise<Register> }> = [
  { names: ['agents'], load: async () => (await import('./agents.js')).registerAgentsCommands },
  { names: ['approve', 'deny-approval', 'approvals'], load: async () => (await import('./approve.js')).registerApproveCommands },
  { names: ['audit'], load: async () => (await import('./audit.js')).registerAuditCommands },
  { names: ['eval'], load: async () => (await import('./eval.js')).registerEvalCommand },
  { names: ['init', 'install', 'uninstall'], load: async () => (await import('./install.js')).registerInstallCommands },
  { names: ['migrate'], load: async () => (await import('./migrate.js')).registerMigrateCommand },
  { names: ['policy'], load: async () => (await import('./policy.js')).registerPolicyCommands },
  { names: ['replay'], load: async () => (await import('./replay.js')).registerReplayCommand },
  { names: ['serve', 'wrap', 'demo', 'reload'], load: async () => (await import('./serve.js')).registerServeCommands },
  { names: ['status'], load: async () => (await import('./status.js')).registerStatusCommand },
  { names: ['tools'], load: async () => (await import('./tools.js')).registerToolsCommands },
  { names: ['ui'], load: async () => (await import('./ui.js')).registerUiCommand },
];

/** The first word of the command line that is not an option: the command to run. */
function commandName(argv: readonly string[]): string | undefined {
  return argv.slice(2).find((a) => !a.startsWith('-'));
}

/**
 * The `quadguard` command with the modules `argv` needs registered (all of them for help, an unknown command or
 * no argv). Results go to stdout; logs and errors to stderr. Exit codes: 0 ok, 1 failure, 2 usage error.
 */
export async function buildProgram(argv?: readonly string[]): Promise<Command> {
  const program = new Command('quadguard')
    .description('A guarding proxy for the Model Context Protocol')
    .version(VERSION)
    .showHelpAfterError()
    .enablePositionalOptions() // lets `wrap` pass the server command's own options through
    .exitOverride();
  const name = argv ? commandName(argv) : undefined;
  const only = name === undefined ? undefined : MODULES.find((m) => m.names.includes(name));
  const wanted = only ? [only] : argv && name === undefined && isVersionOnly(argv) ? [] : MODULES;
  for (const register of await Promise.all(wanted.map((m) => m.load()))) register(program);
  return program;
}

function isVersionOnly(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  return args.length === 1 && (args[0] === '--version' || args[0] === '-V');
}

/** Runs the command line `argv` (as `process.argv`): exit code in `process.exitCode`, errors on stderr. */
export async function main(argv: string[]): Promise<void> {
  try {
    const program = await buildProgram(argv);
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`quadguard: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  }
}

