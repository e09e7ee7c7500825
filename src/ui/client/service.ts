/**
 * The service panel: whether the store answers, each server's state, the last reload (when, which book, ok or
 * failed and why) and a few counters from the metrics registry. Read from `/ui/api/ops` every few seconds; hidden
 * when the view runs beside a stdio proxy (no such route). Written with `textContent` only (dom.ts).
 */
import { byId, el } from './dom.js';
import { fullTime } from './format.js';
import type { ServiceStatus } from './types.js';

/** One line of the panel: a name, a value, and `bad` when it needs attention. */
function line(name: string, value: string, bad = false): HTMLLIElement {
  const li = el('li', bad ? 'bad' : '');
  li.append(el('span', 'name', name), el('span', 'sub', value));
  return li;
}

export function renderService(s: ServiceStatus | null): void {
  const section = byId('service-section');
  section.hidden = s === null;
  if (!s) return;
  const ul = byId('service');
  ul.textContent = '';
  if (s.draining) ul.append(line('shutting down', 'new requests get 503 while those in flight finish', true));
  ul.append(s.store === null ? line('store', 'none (no policy)') : line('store', s.store.ok ? 'reachable' : `not reachable: ${s.store.reason ?? 'no answer'}`, !s.store.ok));
  for (const v of s.servers) {
    const bad = v.state !== 'ready';
    ul.append(line(`server ${v.server}`, `${v.state}${v.required ? ' (required)' : ''}`, bad && v.required));
  }
  const r = s.reload;
  ul.append(
    r === null
      ? line('last reload', 'none since start')
      : line('last reload', r.ok ? `${fullTime(r.at)}: ok, book ${(r.hash ?? '').slice(0, 12)}` : `${fullTime(r.at)}: failed, the running book was kept: ${r.why ?? ''}`, !r.ok),
  );
  for (const c of s.counters) ul.append(line(c.name, String(c.value), c.value > 0 && /failed|errors/.test(c.name)));
}
