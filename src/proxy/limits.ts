import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { LimitsConfig } from '../config/schema.js';
import { protocolError } from './denial.js';

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

/**
 * Rejects arguments that are too deeply nested or too large with an InvalidParams error, before the guard and
 * before any downstream server sees them.
 */
export function enforceArgumentLimits(args: unknown, limits: Pick<LimitsConfig, 'max_argument_depth' | 'max_argument_bytes'>, what: string): void {
  if (args === undefined) return;
  const depth = jsonDepth(args, limits.max_argument_depth);
  if (depth > limits.max_argument_depth) {
    throw protocolError(ErrorCode.InvalidParams, `arguments of ${what} are nested deeper than ${limits.max_argument_depth} levels; flatten them.`);
  }
  const bytes = Buffer.byteLength(JSON.stringify(args) ?? '');
  if (bytes > limits.max_argument_bytes) {
    throw protocolError(ErrorCode.InvalidParams, `arguments of ${what} are ${bytes} bytes, over the ${limits.max_argument_bytes}-byte limit; send less data.`);
  }
}
