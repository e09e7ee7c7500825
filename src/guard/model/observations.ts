import { contentText } from '../../core/fields.js';
import type { Decision, Interaction } from '../../core/types.js';
import { LruCache } from '../../llm/lru.js';

/** Sessions whose observation history is kept (least recently used are forgotten first). */
export const HISTORY_SESSIONS = 10_000;
const SUMMARY_CHARS = 240;

/** A bounded per-session history of decided interactions (memory only), sent to the model as observations. */
export interface Observations {
  /** The session's last summaries, oldest first (a copy). */
  of(session: string): string[];
  record(i: Interaction, d: Decision): void;
}

/** Keeps the last `keep` summaries per session; `keep` 0 records nothing. */
export function createObservations(keep: number): Observations {
  const history = new LruCache<string, string[]>(HISTORY_SESSIONS);
  return {
    of: (session) => [...(history.get(session) ?? [])],
    record(i, d) {
      if (keep === 0) return;
      const list = history.get(i.session) ?? [];
      list.push(summarize(i, d));
      if (list.length > keep) list.splice(0, list.length - keep);
      history.set(i.session, list);
    },
  };
}

/** A one-line summary of a decided interaction, for the observations of later evaluations (untrusted text). */
export function summarize(i: Interaction, d: Pick<Decision, 'decision' | 'rules'>): string {
  const who =
    i.kind === 'message' ? `${i.sender ?? i.agent} → ${i.recipient ?? '?'}` : [i.server, i.tool ?? i.uri].filter((x) => x !== undefined).join('.');
  const body = i.arguments !== undefined ? JSON.stringify(i.arguments) : i.content !== undefined ? contentText(i.content) : '';
  const clipped = body.length > SUMMARY_CHARS ? `${body.slice(0, SUMMARY_CHARS)}…` : body;
  return `${i.kind} ${who}: ${clipped} → ${d.decision}${d.rules.length > 0 ? ` (${d.rules.join(', ')})` : ''}`;
}
