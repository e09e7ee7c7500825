// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../src/ui/client/api.js';
import { closeDrawer, showDrawer, wireDrawer } from '../../src/ui/client/drawer.js';
import { addDecision, counts, incoming, onlyAgent, wireFeed } from '../../src/ui/client/feed.js';
import { LiveState } from '../../src/ui/client/state.js';
import type { Row } from '../../src/ui/client/types.js';
import { kindsView } from '../../src/ui/kinds.js';
import { PAGE_HTML } from '../../src/ui/page.js';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

let id = 0;
function row(over: Partial<Row>): Row {
  id++;
  return {
    id, auditId: `${id}-abcdef12`, ts: Date.parse('2026-11-26T12:00:00Z') + id * 1000, agent: 'planner', session: 's1', kind: 'tool_call',
    server: 'mail', tool: 'send_email', uri: null, recipient: null, preview: null, decision: 'allow', rules: [], flagged: [], witness: [],
    threatLevel: 0, rationale: 'allowed', elapsedMs: 0.4, policyHash: null, source: 'pipeline', ...over,
  };
}

/** The page's body, the parts wired as main.ts wires them, an API that answers the drawer's fetch. */
function page(detail: unknown = { interaction: null }): { state: LiveState; api: ApiClient; calls: string[] } {
  document.body.innerHTML = /<body>([\s\S]*)<script/.exec(PAGE_HTML)![1]!;
  const state = new LiveState();
  state.kinds = kindsView();
  const calls: string[] = [];
  const api = { call: async (_m: string, path: string) => (calls.push(path), detail) } as unknown as ApiClient;
  state.hooks = { open: (it) => showDrawer(state, api, it), onlyAgent: (a) => onlyAgent(state, a), counts: () => counts(state), failed: () => {} };
  wireFeed(state);
  unwire.push(wireDrawer(state));
  return { state, api, calls };
}

const items = () => Array.from(document.querySelectorAll<HTMLLIElement>('#decisions li[data-audit-id]'));

let unwire: Array<() => void> = [];
beforeEach(() => {
  id = 0;
});
afterEach(() => {
  for (const f of unwire) f();
  unwire = [];
});

describe('live view in a DOM: the feed', () => {
  it('joins a result to the call it answers (by the server\'s kinds table) and shows the denial with its rule', () => {
    const { state } = page();
    addDecision(state, row({ preview: '{"to":"x@example.com"}' }), false);
    addDecision(state, row({ kind: 'tool_result', decision: 'deny', rules: ['no-injection-in-results'], rationale: 'injected instructions' }), true);
    addDecision(state, row({ kind: 'resource_request', server: 'docs', tool: null, uri: 'file:///a.md' }), false);
    addDecision(state, row({ kind: 'resource_result', server: 'docs', tool: null, uri: 'file:///a.md' }), false);
    expect(items()).toHaveLength(2);
    const [read, call] = items();
    expect(call!.getAttribute('data-decision')).toBe('deny');
    expect(call!.getAttribute('data-result-audit-id')).toBe('2-abcdef12');
    expect(call!.textContent).toContain('result denied');
    expect(call!.querySelector('.why')!.textContent).toBe('no-injection-in-results: injected instructions');
    expect(read!.textContent).toContain('result allowed');
    expect(document.getElementById('count-denied')!.textContent).toBe('1 denied');
  });

  it('writes what a row carries as text: markup in a preview, an agent name or a rationale creates no element', () => {
    const { state } = page();
    addDecision(state, row({ agent: HOSTILE, preview: HOSTILE, decision: 'deny', rules: ['r'], rationale: HOSTILE }), false);
    const li = items()[0]!;
    expect(li.querySelector('img, script')).toBeNull();
    expect(li.querySelector('.args')!.textContent).toBe(HOSTILE);
    expect(document.querySelector('#f-agent option:last-child')!.textContent).toBe(HOSTILE);
  });

  it('filters by decision and agent, and holds new rows while paused', () => {
    const { state } = page();
    addDecision(state, row({}), false);
    addDecision(state, row({ agent: 'mailer', decision: 'deny', rules: ['no-secret-leak'] }), false);
    const decision = document.getElementById('f-decision') as HTMLSelectElement;
    decision.value = 'deny';
    decision.dispatchEvent(new Event('change'));
    expect(items().filter((li) => !li.hidden).map((li) => li.getAttribute('data-agent'))).toEqual(['mailer']);
    decision.value = '';
    decision.dispatchEvent(new Event('change'));
    onlyAgent(state, 'planner');
    expect(items().filter((li) => !li.hidden).map((li) => li.getAttribute('data-agent'))).toEqual(['planner']);
    (document.getElementById('pause') as HTMLButtonElement).click();
    incoming(state, row({ agent: 'planner' }));
    expect(items()).toHaveLength(2);
    expect(document.getElementById('shown')!.textContent).toContain('1 new waiting');
    (document.getElementById('pause') as HTMLButtonElement).click();
    expect(items()).toHaveLength(3);
  });
});

describe('live view in a DOM: the drawer', () => {
  it('shows the rule, the witness and the recorded arguments of an elicitation answer as arguments', async () => {
    const { state, calls } = page({ interaction: { arguments: { phone: '***' } }, truncated: true });
    state.policy = { rules: { 'no-secret-in-elicitation-answer': { text: 'A user answer must not carry credentials.', severity: 'critical', remediation: 'Decline.' } } };
    addDecision(state, row({
      kind: 'elicitation_result', tool: null, decision: 'deny', rules: ['no-secret-in-elicitation-answer'], rationale: HOSTILE,
      witness: [{ rule: 'no-secret-in-elicitation-answer', predicates: { secret_in_elicitation_answer: 'true' }, confidence: 1 }],
    }), false);
    items()[0]!.click();
    const drawer = document.getElementById('drawer')!;
    expect(drawer.hidden).toBe(false);
    expect(document.getElementById('drawer-title')!.textContent).toBe('Denied: mail__');
    const headings = Array.from(drawer.querySelectorAll('h3')).map((h) => h.textContent);
    expect(headings).toContain('Arguments (secrets masked)');
    expect(drawer.querySelector('[data-rule="no-secret-in-elicitation-answer"]')!.textContent).toContain('A user answer must not carry credentials.');
    expect(drawer.querySelector('.witness')!.textContent).toBe('no-secret-in-elicitation-answer: secret_in_elicitation_answer = true');
    expect(drawer.querySelector('.rationale')!.textContent).toBe(HOSTILE);
    expect(drawer.querySelector('img, script')).toBeNull();
    await new Promise((r) => setTimeout(r, 0));
    expect(calls).toEqual(['/decisions/1-abcdef12']);
    expect(drawer.querySelector('.payload')!.textContent).toBe(JSON.stringify({ phone: '***' }, null, 2));
    expect(drawer.textContent).toContain('Long values were cut when recorded.');
    document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    expect(drawer.hidden).toBe(true);
    expect(state.selected).toBeNull();
  });

  it('labels a tool result\'s recorded data as content, and closes back to its row', () => {
    const { state, api } = page();
    addDecision(state, row({ kind: 'tool_result', tool: 'read_file', server: 'fs' }), false);
    showDrawer(state, api, state.items[0]!);
    expect(Array.from(document.querySelectorAll('#drawer h3')).map((h) => h.textContent)).toContain('Content (secrets masked)');
    closeDrawer(state);
    expect(document.activeElement).toBe(items()[0]);
  });
});
