#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { errorMessage, QuadGuardError } from '../errors.js';
import { VERSION } from '../version.js';
// -- command modules (one file per command group; keep this list sorted) --
// @register-imports
import { registerReplayCommand } from './replay.js';
import { registerInstallCommands } from './install.js';
import { registerEvalCommand } from './eval.js';
import { registerServeCommands } from './serve.js';
import { registerAgentsCommands } from './agents.js';
import { registerAuditCommands } from './audit.js';
import { registerToolsCommands } from './tools.js';
import { registerPolicyCommands } from './policy.js';
import { registerApproveCommands } from './approve.js';
import { registerUiCommand } from './ui.js';
import { registerMigrateCommand } from './migrate.js';

/**
 * The `quadguard` command. Each command group lives in its own module and registers itself on the program.
 * Results go to stdout; logs and errors to stderr. Exit codes: 0 ok, 1 failure, 2 usage error.
 */
export function buildProgram(): Command {
  const program = new Command('quadguard')
    .description('A guarding proxy for the Model Context Protocol')
    .version(VERSION)
    .showHelpAfterError()
    .exitOverride();
  // @register-calls
  registerReplayCommand(program);
  registerInstallCommands(program);
  registerEvalCommand(program);
  registerServeCommands(program);
  registerAgentsCommands(program);
  registerAuditCommands(program);
  registerToolsCommands(program);
  registerPolicyCommands(program);
  registerApproveCommands(program);
  registerUiCommand(program);
  registerMigrateCommand(program);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode === 0 ? 0 : 2;
      return;
    }
    process.stderr.write(`quadguard: ${errorMessage(err)}\n`);
    process.exitCode = err instanceof QuadGuardError ? 1 : 1;
  }
}

await main(process.argv);
