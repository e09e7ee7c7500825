import type { Command } from 'commander';
import { dirname, resolve } from 'node:path';
import { loadConfigFile } from '../config/load.js';
import { errorMessage, StoreError } from '../core/errors.js';
import { CapabilityMap, type ToolAnnotations } from '../guard/capabilities.js';
import { consequentialOf, isUntrustedSource } from '../guard/consequential.js';
import { loadBook } from '../policy/load.js';
import { capabilityOverrides } from '../config/guard.js';
import { operatorName } from './agents.js';
import { isoTime, storeOptions, withStore, type StoreCliOptions } from './store-options.js';
import { printable, printableJson } from '../core/printable.js';

/** `server__tool` or `server tool` → the pair; server keys never contain `__`, so the first `__` splits. */
export function parseToolRef(first: string, second?: string): { server: string; tool: string } {
  if (second !== undefined) return { server: first, tool: second };
  const at = first.indexOf('__');
  if (at <= 0 || at + 2 >= first.length) {
    throw new StoreError('store_invalid_input', `expected <server>__<tool> or <server> <tool>, got ${first}`);
  }
  return { server: first.slice(0, at), tool: first.slice(at + 2) };
}

/** `quadguard tools list|approve`: pinned downstream tool definitions and approval of changed ones. */
export function registerToolsCommands(program: Command): void {
  const tools = program.command('tools').description('pinned tool definitions; approve changed (pending) ones');

  storeOptions(tools.command('list').description('every pinned tool with its status, hash and capability labels (and where they came from)'))
    .option('--pending', 'only tools whose definition changed and waits for approval')
    .option('--policy <dir>', "policy book whose capability labels to show (default: the config's policy)")
    .option('--json', 'one JSON object per line')
    .action(async (opts: StoreCliOptions & { pending?: boolean; json?: boolean; policy?: string }) => {
      const capabilities = await capabilityMapFor(opts);
      await withStore(opts, async (store) => {
        const pins = await store.pins.listPins(opts.pending ? 'pending' : undefined);
        for (const p of pins) {
          const annotations = parseAnnotations(p.definition);
          const l = capabilities?.labelsOf(p.server, p.tool, annotations);
          // Provenance (docs/provenance.md): whether its results count as untrusted, and what consequential action it is.
          const prov = l ? { untrusted: isUntrustedSource(l.labels, l.origin), consequential: consequentialOf(l.labels, l.origin, p.tool) } : undefined;
          if (opts.json) process.stdout.write(`${printableJson(JSON.stringify({ ...p, ...(l ? { labels: l.labels, labelOrigin: l.origin, labelBecause: l.because, ...prov } : {}) }))}\n`);
          else {
            const change = p.status === 'pending' ? ` → ${p.pendingHash!.slice(0, 12)}` : '';
            const derived = prov ? [...(prov.untrusted && !l!.labels.includes('untrusted_source') ? ['untrusted_source'] : []), ...(prov.consequential.length > 0 ? [`consequential:${prov.consequential.join('+')}`] : [])] : [];
            const labels = l ? `  ${l.labels.join(',')} (${l.origin}: ${l.because})${derived.length > 0 ? ` [${derived.join(', ')}]` : ''}` : '';
            process.stdout.write(`${printable(`${p.server}__${p.tool}  ${p.status.padEnd(8)}  ${p.hash.slice(0, 12)}${change}${labels}  ${isoTime(p.updatedAt)}`)}\n`);
          }
        }
        if (pins.length === 0 && !opts.json) process.stderr.write(opts.pending ? 'no pending tools\n' : 'no pinned tools\n');
      });
    });

  storeOptions(tools.command('approve <tool> [name]').description('approve the changed definition of <server>__<tool> (or <server> <tool>)'))
    .option('--hash <prefix>', 'approve only if the pending definition still has this hash (as shown by tools list)')
    .option('--by <name>', 'who approves, for the audit log (default: your user name)')
    .action(async (first: string, second: string | undefined, opts: StoreCliOptions & { hash?: string; by?: string }) => {
      const { server, tool } = parseToolRef(first, second);
      await withStore(opts, async (store) => {
        const before = await store.pins.getPin(server, tool);
        const p = await store.pins.approvePin(server, tool, opts.hash, opts.by ?? operatorName());
        const what = before?.status === 'pending' ? 'approved' : 'already approved:';
        process.stdout.write(`${what} ${server}__${tool} ${p.hash.slice(0, 12)}\n`);
      });
    });
}

/** The annotations of a pinned definition (an empty object when it has none or does not parse). */
function parseAnnotations(definition: string): ToolAnnotations {
  try {
    const a = (JSON.parse(definition) as { annotations?: unknown }).annotations;
    return a && typeof a === 'object' ? (a as ToolAnnotations) : {};
  } catch {
    return {};
  }
}

/**
 * Capability labels as the proxy would give them: the book (`--policy`, else the config's `policy:`) and the
 * config's per-server `capabilities`. Undefined (labels not shown) when neither a book nor a config is given.
 */
async function capabilityMapFor(opts: StoreCliOptions & { policy?: string }): Promise<CapabilityMap | undefined> {
  let overrides: ReturnType<typeof capabilityOverrides> = [];
  let policy = opts.policy;
  if (opts.config) {
    try {
      const { config } = loadConfigFile(opts.config);
      overrides = capabilityOverrides(config);
      policy ??= config.policy === undefined ? undefined : resolve(dirname(resolve(opts.config)), config.policy);
    } catch (err) {
      process.stderr.write(`capability labels from the config are not shown: ${errorMessage(err)}\n`);
    }
  }
  if (policy === undefined) return undefined;
  const book = await loadBook(policy);
  return new CapabilityMap(book.compiled.book.capabilities, overrides);
}
