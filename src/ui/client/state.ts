/**
 * What the live view holds between events: the decisions shown (one item per interaction: a request and the
 * result that answers it), agents, approvals, pins, threat series, and what the person is doing (selection, pause).
 * One object, created by `main.ts` and passed to every part; parts reach each other through `hooks` (set by
 * main.ts), so no part imports another.
 */
import type { Agent, Approval, KindView, Pin, Policy, Row } from './types.js';

export const MAX_ITEMS = 1000;
export const MAX_POINTS = 200;

/** One list entry: a row, and the result row that answered it. */
export interface Item {
  row: Row;
  result: Row | null;
  el: HTMLLIElement;
}

export type ItemDecision = 'allow' | 'deny' | 'held' | 'admin';

export interface Hooks {
  /** Opens an item in the drawer. */
  open(it: Item): void;
  /** Shows only this agent's decisions. */
  onlyAgent(agent: string): void;
  /** Redraws the counts in the header and the tab title. */
  counts(): void;
  /** An API call failed: says so in the status line. */
  failed(err: unknown): void;
}

/**
 * Used until the server's table arrives, and for kinds it does not list (`resource_read` rows from older stores):
 * the same answers the table gives (src/ui/api.ts `kindsView`).
 */
const FALLBACK_KINDS: Record<string, KindView> = {
  tool_call: { role: 'action', label: 'tool call', payload: 'arguments' },
  tool_result: { role: 'result', label: 'tool result', answers: 'tool_call', payload: 'content' },
  resource_read: { role: 'action', label: 'resource read', answers: 'resource_read', payload: 'content' },
};

export class LiveState {
  lastId = 0;
  policy: Policy = { rules: {} };
  kinds: Record<string, KindView> = {};
  /** Server clock minus this page's clock. */
  skew = 0;
  readonly agents = new Map<string, Agent>();
  readonly approvals = new Map<string, Approval>();
  readonly pins = new Map<string, Pin>();
  readonly series = new Map<string, Array<{ ts: number; level: number }>>();
  readonly items: Item[] = [];
  readonly byAuditId = new Map<string, Item>();
  /** Requests allowed and not yet answered, by `pairKey`. */
  readonly open = new Map<string, Item>();
  /** The last rows of each session (the approvals panel shows what came before a held call). */
  readonly recentBySession = new Map<string, Row[]>();
  paused = false;
  readonly buffered: Row[] = [];
  selected: Item | null = null;
  chartsDirty = false;
  hooks: Hooks = { open: () => {}, onlyAgent: () => {}, counts: () => {}, failed: () => {} };

  now(): number {
    return Date.now() + this.skew;
  }

  kind(kind: string): KindView | undefined {
    return this.kinds[kind] ?? FALLBACK_KINDS[kind];
  }

  /** A result's request kind, when it answers one. */
  answers(kind: string): string | undefined {
    return this.kind(kind)?.answers;
  }

  /** Whether rows of this kind are requests a later result answers. */
  isRequest(kind: string): boolean {
    return Object.values(this.kinds).some((k) => k.answers === kind) || Object.values(FALLBACK_KINDS).some((k) => k.answers === kind);
  }

  /** The label of what the recorded interaction carries, for the drawer. */
  payloadLabel(row: Row): string {
    const prompt = row.kind === 'resource_read' && row.uri?.startsWith('prompt:');
    return this.kind(row.kind)?.payload === 'arguments' || prompt ? 'Arguments (secrets masked)' : 'Content (secrets masked)';
  }

  point(agent: string, ts: number, level: number): void {
    let s = this.series.get(agent);
    if (!s) this.series.set(agent, (s = []));
    s.push({ ts, level });
    if (s.length > MAX_POINTS) s.splice(0, s.length - MAX_POINTS);
    this.chartsDirty = true;
  }
}

export function isHeld(r: Pick<Row, 'source' | 'decision' | 'kind'>): boolean {
  return r.source === 'approval' && r.decision === 'deny' && r.kind !== 'admin';
}

export function itemDecision(it: Item): ItemDecision {
  if (it.row.kind === 'admin') return 'admin';
  if (isHeld(it.row)) return 'held';
  if (it.row.decision === 'deny' || it.result?.decision === 'deny') return 'deny';
  return 'allow';
}

export function itemRules(it: Item): string[] {
  const out = [...it.row.rules];
  for (const r of it.result?.rules ?? []) if (!out.includes(r)) out.push(r);
  return out;
}

/** A request and its result share session, server and tool, URI or prompt. */
export function pairKey(r: Row): string {
  const resource = r.kind.startsWith('resource_');
  const prompt = r.kind.startsWith('prompt_');
  return `${r.session}\u0000${r.server ?? ''}\u0000${resource ? `r:${r.uri ?? ''}` : `${prompt ? 'p:' : 't:'}${r.tool ?? ''}`}`;
}

/** The rule's text: from the book, or the proxy's own per-server tool lists. */
export function ruleInfo(state: LiveState, id: string): { text: string; severity?: string; remediation?: string } | null {
  const known = state.policy.rules[id];
  if (known) return known;
  const m = /^servers\.([^.]+)\.tools$/.exec(id);
  if (m) return { text: `Tools of server "${m[1]}" hidden by its allow/deny list in the QuadGuard config (servers.${m[1]}.tools) are never listed or called.` };
  return null;
}
