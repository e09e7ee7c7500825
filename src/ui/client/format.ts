/** Times (always UTC, the zone named) and the short names of rows the page shows. */
import type { Row, Witness } from './types.js';

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** HH:MM:SS in UTC. */
export function clock(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** YYYY-MM-DD HH:MM:SS.mmm UTC */
export function fullTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${clock(ms)}.${pad(d.getUTCMilliseconds(), 3)} UTC`;
}

/** M:SS, never negative. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}:${pad(s % 60)}`;
}

/** What a row acted on: the tool, the resource, the prompt or the message's recipient. */
export function target(r: Pick<Row, 'kind' | 'server' | 'tool' | 'uri' | 'recipient'>): string {
  if (r.kind === 'admin') return (r.tool ?? '') + (r.server ? ` ${r.server}` : '');
  if (r.uri) return (r.server ? `${r.server} ` : '') + r.uri;
  if (r.server || r.tool) return (r.server ? `${r.server}__` : '') + (r.tool ?? '');
  return r.recipient ? `message \u2192 ${r.recipient}` : r.kind;
}

/** The witnesses' predicates, each once: `p` when true, `p=value` otherwise. */
export function witnessText(ws: readonly Witness[]): string {
  const out: string[] = [];
  for (const w of ws) {
    for (const [p, v] of Object.entries(w.predicates ?? {})) {
      const t = v === 'true' ? p : `${p}=${v}`;
      if (!out.includes(t)) out.push(t);
    }
  }
  return out.join(', ');
}

/** An id usable in an element id and a fragment. */
export function anchorId(agent: string): string {
  return `chart-${agent.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}
