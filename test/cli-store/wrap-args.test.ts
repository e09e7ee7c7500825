import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerServeCommands } from '../../src/cli/serve.js';

/** Parses a `wrap` command line with the real option definitions, capturing what the action would get. */
async function parseWrap(args: string[]): Promise<{ cmd: string[]; env?: string[]; policy?: unknown }> {
  const program = new Command('quadguard').enablePositionalOptions().exitOverride();
  registerServeCommands(program);
  let seen: { cmd: string[]; env?: string[]; policy?: unknown } | undefined;
  program.commands.find((c) => c.name() === 'wrap')!.action((cmd: string[], o: { env?: string[]; policy?: unknown }) => {
    seen = { cmd, ...(o.env ? { env: o.env } : {}), ...(o.policy !== undefined ? { policy: o.policy } : {}) };
  });
  await program.parseAsync(['node', 'quadguard', 'wrap', ...args]);
  return seen!;
}

describe('quadguard wrap arguments', () => {
  it('--env takes one value, so a client that strips "--" does not lose the command to it', async () => {
    expect(await parseWrap(['--env', 'FS_TOKEN', 'npx', '-y', 'server-fs', '/tmp'])).toEqual({ cmd: ['npx', '-y', 'server-fs', '/tmp'], env: ['FS_TOKEN'] });
    expect(await parseWrap(['--env', 'A,B', '--env', 'C', '--', 'node', 's.js'])).toEqual({ cmd: ['node', 's.js'], env: ['A', 'B', 'C'] });
    // The server's own options stay the server's, with or without "--".
    expect(await parseWrap(['--name', 'fs', 'node', 's.js', '--name', 'x', '--env', 'Y'])).toEqual({ cmd: ['node', 's.js', '--name', 'x', '--env', 'Y'] });
  });

  it('has no commander default for --policy, so --help names the shipped default once', async () => {
    expect(await parseWrap(['--', 'node', 's.js'])).toEqual({ cmd: ['node', 's.js'] });
    const program = new Command('quadguard').enablePositionalOptions();
    registerServeCommands(program);
    const help = program.commands.find((c) => c.name() === 'wrap')!.helpInformation();
    expect(help.match(/policies\/default/g)).toHaveLength(1);
  });
});
