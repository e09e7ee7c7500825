import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { isoTime, storeOptions, withStore, type StoreCliOptions } from './store-options.js';
import { printable, printableJson } from '../core/printable.js';

/** Who runs an admin command, for the audit row (`--by` overrides). */
export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown';
  }
}

/** `quadguard agents list|release`: the threat watcher's per-agent state and quarantine. */
export function registerAgentsCommands(program: Command): void {
  const agents = program.command('agents').description('list agents\' threat state; release quarantined agents');

  storeOptions(agents.command('list').description('every agent with its threat score, level and quarantine'))
    .option('--json', 'one JSON object per line')
    .option('--quarantined', 'only quarantined agents')
    .action(async (opts: StoreCliOptions & { json?: boolean; quarantined?: boolean }) => {
      await withStore(opts, async (store) => {
        const list = (await store.state.listAgents()).filter((a) => !opts.quarantined || a.quarantined);
        for (const a of list) {
          if (opts.json) process.stdout.write(`${printableJson(JSON.stringify(a))}\n`);
          else {
            const q = a.quarantined ? `QUARANTINED (${a.reason ?? 'no reason'})` : 'active';
            process.stdout.write(`${printable(`${a.agent}  tau ${a.tau.toFixed(3)}  level ${a.level}  ${q}  ${isoTime(a.updatedAt)}`)}\n`);
          }
        }
        if (list.length === 0 && !opts.json) process.stderr.write('no agents recorded\n');
      });
    });

  storeOptions(agents.command('release <agent>').description('lift quarantine and reset the threat score to 0 (audited)'))
    .option('--by <name>', 'who releases it, for the audit log (default: your user name)')
    .action(async (agent: string, opts: StoreCliOptions & { by?: string }) => {
      await withStore(opts, async (store) => {
        const s = await store.state.release(agent, opts.by ?? operatorName());
        process.stdout.write(`released ${s.agent}: tau ${s.tau}, level ${s.level}\n`);
      });
    });
}
