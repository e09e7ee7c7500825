import type { Command } from 'commander';
import type { Approval } from '../store/approvals.js';
import { operatorName } from './agents.js';
import { isoTime, storeOptions, withStore, type StoreCliOptions } from './store-options.js';
import { printable, printableJson } from '../core/printable.js';

/** One line of `approvals list`: id, status, agent, target, rules, expiry, who decided. */
export function formatApprovalLine(a: Approval): string {
  const target = a.server && a.tool ? `${a.server}__${a.tool}` : (a.tool ?? a.server ?? '-');
  const decided = a.decidedBy ? `  by ${a.decidedBy} ${isoTime(a.decidedAt)}` : '';
  return `${a.id}  ${a.status.padEnd(8)}  ${a.agent}  ${a.kind} ${target}  [${a.rules.join(',')}]  args ${a.argsHash.slice(0, 12)}  expires ${isoTime(a.expires)}${decided}`;
}

/**
 * `quadguard approve <id>`, `quadguard deny-approval <id>` and `quadguard approvals list`: a person's decision on
 * calls held by rules with `effect: approve`. Approving lets the agent's next identical call through once.
 */
export function registerApproveCommands(program: Command): void {
  storeOptions(program.command('approve <id>').description('approve a held call (ap_…): the agent\'s identical retry passes once (audited)'))
    .option('--deny', 'deny it instead (same as deny-approval)')
    .option('--by <name>', 'who decides, for the audit log (default: your user name)')
    .action(async (id: string, opts: StoreCliOptions & { deny?: boolean; by?: string }) => {
      await withStore(opts, async (store) => {
        const by = opts.by ?? operatorName();
        const a = opts.deny ? await store.approvals.deny(id, by) : await store.approvals.approve(id, by);
        process.stdout.write(`${printable(`${a.status} ${a.id}: ${a.kind} ${a.server ?? ''}${a.server && a.tool ? '__' : ''}${a.tool ?? ''} of ${a.agent}${a.status === 'approved' ? `; its identical retry passes once until ${isoTime(a.expires)}` : ''}`)}\n`);
      });
    });

  storeOptions(program.command('deny-approval <id>').description('deny a held call (ap_…); the agent stays blocked (audited)'))
    .option('--by <name>', 'who decides, for the audit log (default: your user name)')
    .action(async (id: string, opts: StoreCliOptions & { by?: string }) => {
      await withStore(opts, async (store) => {
        const a = await store.approvals.deny(id, opts.by ?? operatorName());
        process.stdout.write(`denied ${a.id}\n`);
      });
    });

  const approvals = program.command('approvals').description('calls held for a person\'s approval (rules with effect: approve)');
  storeOptions(approvals.command('list').description('approvals, newest first (expired ones are marked expired first)'))
    .option('--pending', 'only those waiting for a decision')
    .option('--json', 'one JSON object per line')
    .action(async (opts: StoreCliOptions & { pending?: boolean; json?: boolean }) => {
      await withStore(opts, async (store) => {
        const list = await store.approvals.list(opts.pending ? { status: 'pending' } : {});
        for (const a of list) process.stdout.write(`${opts.json ? printableJson(JSON.stringify(a)) : printable(formatApprovalLine(a))}\n`);
        if (list.length === 0 && !opts.json) process.stderr.write(opts.pending ? 'no pending approvals\n' : 'no approvals recorded\n');
      });
    });
}
