// @vitest-environment happy-dom
import { beforeEach, describe, expect, it } from 'vitest';
import { renderService } from '../../src/ui/client/service.js';
import type { ServiceStatus } from '../../src/ui/client/types.js';
import { PAGE_HTML } from '../../src/ui/page.js';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

function status(over: Partial<ServiceStatus> = {}): ServiceStatus {
  return {
    store: { ok: true },
    servers: [{ server: 'mail', state: 'ready', required: true }, { server: 'web', state: 'down', required: false }],
    reload: { at: Date.parse('2026-11-26T12:00:00Z'), ok: true, hash: 'abcdef0123456789' },
    draining: false,
    counters: [{ name: 'decisions denied', value: 3 }, { name: 'store errors', value: 0 }],
    now: Date.now(),
    ...over,
  };
}

const lines = () => Array.from(document.querySelectorAll<HTMLLIElement>('#service li')).map((li) => ({ text: li.textContent ?? '', bad: li.classList.contains('bad') }));

describe('live view in a DOM: the service panel', () => {
  beforeEach(() => {
    document.body.innerHTML = /<body>([\s\S]*)<script/.exec(PAGE_HTML)![1]!;
  });

  it('shows the store, the servers, the last reload and the counters', () => {
    expect(document.getElementById('service-section')!.hidden).toBe(true);
    renderService(status());
    expect(document.getElementById('service-section')!.hidden).toBe(false);
    const got = lines();
    expect(got.map((l) => l.text)).toEqual([
      'storereachable',
      'server mailready (required)',
      'server webdown',
      'last reload2026-11-26 12:00:00.000 UTC: ok, book abcdef012345',
      'decisions denied3',
      'store errors0',
    ]);
    expect(got.some((l) => l.bad)).toBe(false);
  });

  it('marks what needs attention: an unreachable store, a required server down, a failed reload, draining', () => {
    renderService(status({
      store: { ok: false, reason: 'the postgres store does not answer' },
      servers: [{ server: 'mail', state: 'down', required: true }],
      reload: { at: Date.parse('2026-11-26T12:00:00Z'), ok: false, why: 'the book does not parse' },
      draining: true,
      counters: [{ name: 'store errors', value: 2 }],
    }));
    const got = lines();
    expect(got.filter((l) => l.bad).map((l) => l.text.split(':')[0])).toEqual([
      'shutting downnew requests get 503 while those in flight finish',
      'storenot reachable',
      'server maildown (required)',
      'last reload2026-11-26 12',
      'store errors2',
    ]);
    expect(got.find((l) => l.text.startsWith('last reload'))!.text).toContain('failed, the running book was kept: the book does not parse');
  });

  it('writes every value as text, never as markup', () => {
    renderService(status({ servers: [{ server: HOSTILE, state: HOSTILE, required: false }], reload: { at: 0, ok: false, why: HOSTILE } }));
    expect(document.querySelector('#service img, #service script')).toBeNull();
    expect(document.getElementById('service')!.textContent).toContain(HOSTILE);
  });

  it('hides the panel beside a stdio proxy (no service state)', () => {
    renderService(status());
    renderService(null);
    expect(document.getElementById('service-section')!.hidden).toBe(true);
  });
});
