import type { ToolLists } from '../config/schema.js';
import { makeDecision, type Decision, type Guard, type Interaction } from '../core/types.js';

/** Compiles `*`/`?` globs into one anchored RegExp (undefined for an empty or absent list). */
export function compileGlobs(globs: string[] | undefined): RegExp | undefined {
  if (!globs || globs.length === 0) return undefined;
  const parts = globs.map((g) => g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.'));
  return new RegExp(`^(?:${parts.join('|')})$`);
}

/**
 * The per-server allow/deny tool lists as a `Guard`. The same compiled lists drive `isVisible` (what tools/list
 * shows) and `check` (what tools/call may reach), so a hidden tool can never be called.
 *
 * @example
 * const filter = new ToolFilter({ files: { deny: ['write_*'] } });
 * filter.isVisible('files', 'write_file'); // false
 */
export class ToolFilter implements Guard {
  private readonly lists = new Map<string, { allow?: RegExp | undefined; deny?: RegExp | undefined }>();

  constructor(perServer: Record<string, ToolLists | undefined>) {
    for (const [server, l] of Object.entries(perServer)) {
      this.lists.set(server, { allow: compileGlobs(l?.allow), deny: compileGlobs(l?.deny) });
    }
  }

  /** Whether a tool may be listed and called: deny is checked before allow; no allow list means all allowed. */
  isVisible(server: string, tool: string): boolean {
    const l = this.lists.get(server);
    if (!l) return true;
    if (l.deny?.test(tool)) return false;
    if (l.allow && !l.allow.test(tool)) return false;
    return true;
  }

  /** Denies `tool_call`s to tools the lists hide; everything else passes. */
  async check(i: Interaction): Promise<Decision> {
    if (i.kind === 'tool_call' && i.server !== undefined && i.tool !== undefined && !this.isVisible(i.server, i.tool)) {
      const l = this.lists.get(i.server);
      const why = l?.deny?.test(i.tool) ? 'matches its deny list' : 'is not on its allow list';
      return makeDecision({
        decision: 'deny',
        rationale: `tool "${i.tool}" of server "${i.server}" is disabled by the proxy configuration (it ${why}).`,
        rules: [`servers.${i.server}.tools`],
        remediation: 'Use one of the tools listed by tools/list, or ask the operator to enable this tool in the QuadGuard config.',
        source: 'filter',
      });
    }
    return makeDecision({ decision: 'allow', rationale: 'tool filter: allowed', source: 'filter' });
  }
}
