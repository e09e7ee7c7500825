import { listingText } from '../core/fields.js';
import { scoreInjection, TOOL_DESCRIPTION_SIGNALS } from '../detectors/injection/index.js';
import type { Logger } from '../core/log.js';
import type { GuardStore } from '../store/engine.js';
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

/** A server's own text (a tool's or item's definition, its instructions) scored as the screens read it: a description. */
const screenScore = (text: string) => scoreInjection(text, SCREEN_SIGNALS, 0, 'description');

/** Distinct tool texts whose injection score is remembered. */
const SCORE_CACHE_LIMIT = 4096;

/** What the tool and listing screens share: the memo of scores by text and one audit row per server/item/reason. */
function createTextScreen(store: GuardStore, logger: Logger, threshold: number) {
  const log = logger.child({ mod: 'tool-screen' });
  const reported = new Set<string>();
  // The proxy re-screens every few seconds (approvals) and on every listing; a text's score depends only on the
  // text, so each distinct text is scored once. Bounded: a server inventing descriptions cannot grow it forever.
  const scores = new Map<string, ReturnType<typeof scoreInjection>>();
  const scoreOf = (text: string) => {
    let s = scores.get(text);
    if (s === undefined) {
      if (scores.size >= SCORE_CACHE_LIMIT) scores.clear();
      s = screenScore(text);
      scores.set(text, s);
    }
    return s;
  };
  return {
    store,
    /** Why the text is poisoned ("signals, score N"), or undefined when it scores under the threshold. */
    poison(text: string): string | undefined {
      const p = scoreOf(text);
      return p.score >= threshold ? `${[...new Set(p.findings.map((f) => f.signal))].join(', ')}, score ${p.score}` : undefined;
    },
    /** One log line and one admin audit row per server, item and reason in this process. */
    async record(server: string, item: { tool?: string; uri?: string }, why: string, rationale: string, distinct = ''): Promise<void> {
      const key = `${server}\u0000${item.tool ?? ''}\u0000${item.uri ?? ''}\u0000${why}\u0000${distinct}`;
      if (reported.has(key)) return;
      if (reported.size >= SCORE_CACHE_LIMIT * 4) reported.clear();
      log.warn({ server, ...item, why }, rationale);
      await store.audit.append({ agent: 'quadguard', kind: 'admin', server, ...item, decision: 'deny', rationale, source: `tool-screen:${why}` });
      reported.add(key);
    },
  };
}

export function createToolScreen(store: GuardStore, logger: Logger, opts: ToolScreenOptions = {}) {
  const pin = opts.pin ?? true;
  const screen = createTextScreen(store, logger, opts.poisonThreshold ?? 0.5);
  const record = (server: string, tool: string, why: string, rationale: string) => screen.record(server, { tool }, why, rationale);

  return async function screenTools<T extends ToolDefinition>(server: string, tools: T[]): Promise<T[]> {
    const visible: T[] = [];
    for (const tool of tools) {
      // Every text of the definition a client may hand its model (core/fields.ts `listingText`: the titles, the
      // description, both schemas with their property names, `_meta`, icons, and any field added later) and the
      // annotations' title.
      const annotationTitle = (tool.annotations as { title?: unknown } | undefined)?.title;
      const text = [listingText(tool), typeof annotationTitle === 'string' ? annotationTitle : undefined].filter(Boolean).join('\n');
      const poison = screen.poison(text);
      if (poison !== undefined) {
        await record(server, tool.name, 'poisoned', `tool ${server}__${tool.name} hidden: its description carries injected instructions (${poison})`);
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
export function createInstructionsScreen(store: GuardStore, logger: Logger, opts: Pick<ToolScreenOptions, 'poisonThreshold'> = {}) {
  const threshold = opts.poisonThreshold ?? 0.5;
  const log = logger.child({ mod: 'tool-screen' });
  const reported = new Set<string>();
  return async function screenInstructions(server: string, text: string): Promise<ScreenedInstructions> {
    const poison = screenScore(text);
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

/** The parts of a prompt, resource or template listing the screen reads (the MCP SDK's types fit them). */
interface ListedPrompt {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  arguments?: { name: string; title?: string | undefined; description?: string | undefined }[] | undefined;
}
interface ListedResource {
  uri: string;
  name: string;
  mimeType?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
}
interface ListedTemplate {
  uriTemplate: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
}

/** The parts of an A2A agent card's skill the screen reads. */
interface ListedSkill {
  id: string;
  name: string;
  description?: string | undefined;
  tags?: string[] | undefined;
  examples?: string[] | undefined;
}

/**
 * Screens the other listings a client host shows its model, with the signals and threshold of tool descriptions:
 * - prompts (`prompts/list`), resources (`resources/list`, with the MIME type) and resource templates
 *   (`resources/templates/list`): every text of the item (core/fields.ts `listingText`: names, titles,
 *   descriptions, each argument's, `_meta`, icons, any field added later);
 * - A2A agent skills (the card a caller's model reads, docs/a2a.md): every text of the skill, the same way;
 * - completion values (`completion/complete`): each suggested value, and all of them read together (an
 *   injection split across values); a poisoned value is dropped, and when only the values together are poisoned,
 *   all of them are.
 * A poisoned item is hidden from its listing (the proxy then refuses a get or read of it) with one log line and
 * one admin audit row per server, item and reason (source `tool-screen:prompt-poisoned`, `resource-poisoned`,
 * `template-poisoned`, `skill-poisoned`, `completion-poisoned`). Scores are remembered by text, so a re-listing costs no scoring.
 */
export function createListingScreen(store: GuardStore, logger: Logger, opts: Pick<ToolScreenOptions, 'poisonThreshold'> = {}) {
  const screen = createTextScreen(store, logger, opts.poisonThreshold ?? 0.5);
  const join = (parts: (string | undefined)[]) => parts.filter((p): p is string => typeof p === 'string' && p !== '').join('\n');
  const hide = async <T>(server: string, items: T[], what: string, textOf: (i: T) => string, itemOf: (i: T) => { tool?: string; uri?: string }, label: (i: T) => string): Promise<T[]> => {
    const visible: T[] = [];
    for (const i of items) {
      const poison = screen.poison(textOf(i));
      if (poison === undefined) visible.push(i);
      else await screen.record(server, itemOf(i), `${what}-poisoned`, `${what} ${label(i)} of server "${server}" hidden: its listing carries injected instructions (${poison})`);
    }
    return visible;
  };
  return {
    prompts: <T extends ListedPrompt>(server: string, prompts: T[]) =>
      hide(server, prompts, 'prompt', (p) => listingText(p), (p) => ({ tool: p.name }), (p) => p.name),
    resources: <T extends ListedResource>(server: string, resources: T[]) =>
      hide(server, resources, 'resource', (r) => join([listingText(r), r.mimeType]), (r) => ({ uri: r.uri }), (r) => r.uri),
    templates: <T extends ListedTemplate>(server: string, templates: T[]) =>
      hide(server, templates, 'template', (t) => listingText(t), (t) => ({ uri: t.uriTemplate }), (t) => t.uriTemplate),
    skills: <T extends ListedSkill>(server: string, skills: T[]) =>
      hide(server, skills, 'skill', (k) => listingText(k), (k) => ({ tool: k.id }), (k) => k.id),
    /** The completion values to pass on for `ref` (a prompt name or a template URI) of `server`. */
    async completions(server: string, ref: string, values: string[]): Promise<string[]> {
      const kept: string[] = [];
      for (const v of values) {
        const poison = screen.poison(v);
        if (poison === undefined) kept.push(v);
        else await screen.record(server, { tool: ref }, 'completion-poisoned', `completion value for ${ref} of server "${server}" dropped: it carries injected instructions (${poison})`, v);
      }
      if (kept.length < 2) return kept;
      const together = screen.poison(kept.join(' '));
      if (together === undefined) return kept;
      await screen.record(server, { tool: ref }, 'completion-poisoned', `completion values for ${ref} of server "${server}" dropped: together they carry injected instructions (${together})`, kept.join(' '));
      return [];
    },
  };
}

/** The listing screen's hooks (see `createListingScreen`). */
export type ListingScreen = ReturnType<typeof createListingScreen>;
