import { scoreInjection, TOOL_DESCRIPTION_SIGNALS } from '../detectors/injection/index.js';
import type { Logger } from '../core/log.js';
import type { Store } from '../store/db.js';
import type { GuardStore } from '../store/engine.js';
import { toGuardStore } from '../store/sqlite-engine.js';
import type { ToolDefinition } from '../store/tool-hash.js';

/**
 * Screens downstream tool definitions each time a server lists them (DESIGN §5):
 * - pinning: the first definition seen is pinned (order-insensitive hash of name, description and schemas); a
 *   changed definition (a rug pull) is hidden, and its calls fail as unknown tools, until a person approves it
 *   with `quadguard tools approve`;
 * - tool poisoning: a description (or a title, or input or output schema text) carrying injected instructions is
 *   hidden and recorded.
 * Each hidden tool gets one audit row per change, so `audit tail` shows why a tool disappeared.
 */
export interface ToolScreenOptions {
  /** Injection score at or above which a description hides the tool. */
  poisonThreshold?: number;
  /** Pin definitions and hide changed ones. */
  pin?: boolean;
}

/**
 * Signals a description is screened with: the loud injection families and `tool_hijack` (asks for secrets the
 * model has seen, to be called first, to keep something from the user). Descriptions legitimately tell the model
 * what to pass and when to call, so the context-dependent families stay off.
 */
const SCREEN_SIGNALS = new Set(TOOL_DESCRIPTION_SIGNALS);

/** Distinct tool texts whose injection score is remembered. */
const SCORE_CACHE_LIMIT = 4096;

export function createToolScreen(storeIn: GuardStore | Store, logger: Logger, opts: ToolScreenOptions = {}) {
  const store = toGuardStore(storeIn);
  const threshold = opts.poisonThreshold ?? 0.5;
  const pin = opts.pin ?? true;
  const log = logger.child({ mod: 'tool-screen' });
  const reported = new Set<string>();
  // The proxy re-screens every few seconds (approvals) and on every listing; a description's score depends only on
  // its text, so each distinct text is scored once. Bounded: a server inventing descriptions cannot grow it forever.
  const scores = new Map<string, ReturnType<typeof scoreInjection>>();
  const scoreOf = (text: string) => {
    let s = scores.get(text);
    if (s === undefined) {
      if (scores.size >= SCORE_CACHE_LIMIT) scores.clear();
      s = scoreInjection(text, SCREEN_SIGNALS);
      scores.set(text, s);
    }
    return s;
  };

  const record = async (server: string, tool: string, why: string, rationale: string) => {
    const key = `${server}\u0000${tool}\u0000${why}`;
    if (reported.has(key)) return;
    log.warn({ server, tool, why }, rationale);
    await store.audit.append({ agent: 'quadguard', kind: 'admin', server, tool, decision: 'deny', rationale, source: `tool-screen:${why}` });
    reported.add(key);
  };

  return async function screenTools<T extends ToolDefinition>(server: string, tools: T[]): Promise<T[]> {
    const visible: T[] = [];
    for (const tool of tools) {
      // Every text of the definition a client may hand its model: the titles (its own and the annotations'), the
      // description and both schemas (descriptions, titles, enums and defaults inside them).
      const annotationTitle = (tool.annotations as { title?: unknown } | undefined)?.title;
      const text = [tool.title, typeof annotationTitle === 'string' ? annotationTitle : undefined, tool.description, JSON.stringify(tool.inputSchema ?? {}), tool.outputSchema === undefined ? undefined : JSON.stringify(tool.outputSchema)]
        .filter(Boolean)
        .join('\n');
      const poison = scoreOf(text);
      if (poison.score >= threshold) {
        const signals = poison.findings.map((f) => f.signal).join(', ');
        await record(server, tool.name, 'poisoned', `tool ${server}__${tool.name} hidden: its description carries injected instructions (${signals}, score ${poison.score})`);
        continue;
      }
      if (pin) {
        const seen = await store.pins.observeTool(server, tool);
        if (seen.pin.status === 'pending') {
          await record(
            server,
            tool.name,
            `changed:${seen.pin.pendingHash ?? ''}`,
            `tool ${server}__${tool.name} hidden: its definition changed since it was approved (possible rug pull); review and run \`quadguard tools approve ${server}__${tool.name}\``,
          );
          continue;
        }
      }
      visible.push(tool);
    }
    return visible;
  };
}

/** What the screen made of a server's `instructions`: the text to pass on, or why it was withheld. */
export type ScreenedInstructions = { text: string } | { withheld: string };

/**
 * Screens a downstream server's `instructions` (its initialize result) before the proxy passes them to clients:
 * they are text the client's model reads, so they carry injections the way tool descriptions do, and get the
 * same check (the same signals, the same threshold). Instructions that fail are withheld, with one log line and
 * one audit row per distinct text.
 */
export function createInstructionsScreen(storeIn: GuardStore | Store, logger: Logger, opts: Pick<ToolScreenOptions, 'poisonThreshold'> = {}) {
  const store = toGuardStore(storeIn);
  const threshold = opts.poisonThreshold ?? 0.5;
  const log = logger.child({ mod: 'tool-screen' });
  const reported = new Set<string>();
  return async function screenInstructions(server: string, text: string): Promise<ScreenedInstructions> {
    const poison = scoreInjection(text, SCREEN_SIGNALS);
    if (poison.score < threshold) return { text };
    const signals = [...new Set(poison.findings.map((f) => f.signal))].join(', ');
    const why = `they carry injected instructions (${signals}, score ${poison.score})`;
    const key = `${server}\u0000${text}`;
    if (!reported.has(key)) {
      const rationale = `instructions of server "${server}" withheld: ${why}`;
      log.warn({ server, signals }, rationale);
      await store.audit.append({ agent: 'quadguard', kind: 'admin', server, decision: 'deny', rationale, source: 'tool-screen:instructions' });
      reported.add(key);
    }
    return { withheld: why };
  };
}
