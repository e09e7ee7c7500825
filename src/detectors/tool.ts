import { z } from 'zod';
import { expandKinds } from '../core/kinds.js';
import { BookKindSchema } from '../core/types.js';
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
 * - `kinds`: when given, interactions of other kinds are `false` (names as in a rule's `applies_to`).
 *
 * No tool on the interaction (messages, resources, prompts) is `false`: there is nothing that could match.
 *
 * @example { type: tool, match: ['github__create_*', 'slack__post_message'], kinds: [tool_call] }
 */
export const ToolOptionsSchema = z.strictObject({
  match: z.array(z.string().min(1)).min(1),
  kinds: z.array(BookKindSchema).min(1).optional(),
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
    // All the globs as one expression first (it matches exactly when one of them does): most calls match none, and
    // are answered by one test instead of one per glob; a match is then named by the first glob that matches.
    const any = compileGlob(opts.match);
    const kinds = opts.kinds === undefined ? undefined : new Set(expandKinds(opts.kinds));
    return function tool(i) {
      if (kinds !== undefined && !kinds.has(i.kind)) return no();
      const name = qualifiedTool(i);
      if (name === undefined || !any(name)) return no();
      const hit = matchers.find((m) => m.test(name));
      if (!hit) return no();
      return { value: 'true', score: 1, evidence: `tool: ${clip(name)} matches "${hit.glob}"` };
    };
  },
});
