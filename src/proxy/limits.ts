import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { LimitsConfig } from '../config/schema.js';
import type { Interaction } from '../core/types.js';
import type { ProxyCore } from './context.js';
import { protocolError } from './denial.js';
import { auditSuffix, refuse } from './refusals.js';

/** Nesting depth of a JSON value, stopping as soon as `cap` is exceeded (so hostile input costs little). */
export function jsonDepth(value: unknown, cap: number): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > max) max = d;
    if (max > cap) return max;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return max;
}

/** Which limit arguments break (the config key as the rule), or undefined when they are within both. */
export function argumentLimitViolation(args: unknown, limits: Pick<LimitsConfig, 'max_argument_depth' | 'max_argument_bytes'>, what: string): { rule: string; message: string; tooDeep: boolean } | undefined {
  if (args === undefined) return undefined;
  const depth = jsonDepth(args, limits.max_argument_depth);
  if (depth > limits.max_argument_depth) {
    return { rule: 'limits.max_argument_depth', tooDeep: true, message: `arguments of ${what} are nested deeper than ${limits.max_argument_depth} levels; flatten them.` };
  }
  const bytes = Buffer.byteLength(JSON.stringify(args) ?? '');
  if (bytes > limits.max_argument_bytes) {
    return { rule: 'limits.max_argument_bytes', tooDeep: false, message: `arguments of ${what} are ${bytes} bytes, over the ${limits.max_argument_bytes}-byte limit; send less data.` };
  }
  return undefined;
}

/**
 * Rejects arguments that are too deeply nested or too large with an InvalidParams error, before the guard and
 * before any downstream server sees them.
 */
export function enforceArgumentLimits(args: unknown, limits: Pick<LimitsConfig, 'max_argument_depth' | 'max_argument_bytes'>, what: string): void {
  const v = argumentLimitViolation(args, limits, what);
  if (v) throw protocolError(ErrorCode.InvalidParams, v.message);
}

/**
 * `enforceArgumentLimits` for the proxy: a violation is recorded as a refusal (source `limits`) before the
 * InvalidParams error is thrown. Arguments nested too deep are not recorded (walking them is the risk the
 * limit exists for); oversized ones are, masked and capped by the audit store.
 */
export async function refuseOverLimits(core: ProxyCore, interaction: Interaction, args: unknown, what: string): Promise<void> {
  const v = argumentLimitViolation(args, core.config.limits, what);
  if (!v) return;
  // Only the kinds with arguments (tool calls, prompt requests) record them; a message has none (core/types.ts).
  const safe = !(v.tooDeep || typeof args !== 'object' || args === null || Array.isArray(args));
  let recorded: Interaction = interaction;
  if (interaction.kind === 'tool_call' || interaction.kind === 'prompt_request') {
    const { arguments: _a, ...rest } = interaction;
    recorded = safe ? { ...rest, arguments: args as Record<string, unknown> } : rest;
  }
  const d = await refuse(core, recorded, { rationale: v.message, rules: [v.rule], source: 'limits' });
  throw protocolError(ErrorCode.InvalidParams, `${v.message}${auditSuffix(d)}`);
}

/**
 * The side fields of a request (its `_meta`, core/types.ts `meta`) under the same limits as arguments: a `_meta`
 * nested thousands deep is refused with InvalidParams (recorded, source `limits`) instead of overflowing a reader.
 */
export async function refuseOverLimitsMeta(core: ProxyCore, interaction: Interaction, what: string): Promise<void> {
  const v = interaction.meta === undefined ? undefined : argumentLimitViolation(interaction.meta, core.config.limits, `the _meta of ${what}`);
  if (!v) return;
  // Recorded without the side fields when they are too deep (walking them is the risk), and without arguments then.
  const { meta: _m, ...rest } = interaction;
  const d = await refuse(core, v.tooDeep ? (rest as Interaction) : interaction, { rationale: v.message.replace(/^arguments of /, ''), rules: [v.rule], source: 'limits' });
  throw protocolError(ErrorCode.InvalidParams, `${v.message.replace(/^arguments of /, '')}${auditSuffix(d)}`);
}
