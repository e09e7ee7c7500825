import { z } from 'zod';
import { InteractionKindSchema } from '../core/types.js';
import { compileGlob } from '../core/glob.js';
import { defineDetector } from './registry.js';
import { clip, configError, no } from './common.js';
import { qualifiedTool } from '../core/fields.js';

/**
 * `tool`: true when the interaction's qualified tool `<server>__<tool>` matches one of the `match` globs.
 *
 * - `match`: globs in the syntax of `src/core/glob.ts` (shared with the predicates' `tools`): `*` is any run of
 *   characters within one name segment (it does not cross the `__` separator), `**` any run at all, `?` one
 *   character, `{a,b}` alternatives. A bad glob is a `DetectorConfigError`.
 * - `kinds`: when given, interactions of other kinds are `false`.
 *
 * No tool on the interaction (messages, resource reads) is `false`: there is nothing that could match.
 *
 * @example { type: tool, match: ['github__create_*', 'slack__post_message'], kinds: [tool_call] }
 */
export const ToolOptionsSchema = z.strictObject({
  match: z.array(z.string().min(1)).min(1),
  kinds: z.array(InteractionKindSchema).min(1).optional(),
});
export type ToolOptions = z.infer<typeof ToolOptionsSchema>;

export const toolDetector = defineDetector({
  type: 'tool',
  summary: 'true when the qualified tool name <server>__<tool> matches a glob',
  options: ToolOptionsSchema,
  create(opts, ctx) {
    const matchers = opts.match.map((g) => {
      try {
        return { glob: g, test: compileGlob(g) };
      } catch (err) {
        throw configError(ctx, `tool: ${(err as Error).message}`, err);
      }
    });
    const kinds = opts.kinds === undefined ? undefined : new Set(opts.kinds);
    return function tool(i) {
      if (kinds !== undefined && !kinds.has(i.kind)) return no();
      const name = qualifiedTool(i);
      if (name === undefined) return no();
      const hit = matchers.find((m) => m.test(name));
      if (!hit) return no();
      return { value: 'true', score: 1, evidence: `tool: ${clip(name)} matches "${hit.glob}"` };
    };
  },
});
