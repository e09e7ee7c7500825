import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandKinds, INTERACTION_KINDS, isResultKind, KindRowSchema, KINDS, SCOPE_KINDS, scopeCovers } from '../../src/core/kinds.js';
import { AnyInteractionSchema, InteractionSchema, upgradeLegacyInteraction } from '../../src/core/types.js';
import { approvalBinding } from '../../src/guard/approvals.js';
import { referee, type RuleOutcome } from '../../src/guard/referee.js';
import { RuleSchema } from '../../src/policy/schema.js';

describe('the kinds table', () => {
  it('has one row per kind, and the union one member per kind', () => {
    expect(Object.keys(KINDS).sort()).toEqual([...INTERACTION_KINDS].sort());
    const members = InteractionSchema.options.map((o) => o.shape.kind.value).sort();
    expect(members).toEqual([...INTERACTION_KINDS].sort());
  });

  it('derives the predicate scopes from the roles', () => {
    expect(SCOPE_KINDS.action).toEqual(['tool_call', 'resource_request', 'prompt_request']);
    expect(SCOPE_KINDS.result).toEqual(['tool_result', 'resource_result', 'prompt_result', 'log_message']);
    expect(SCOPE_KINDS.message).toEqual(['message']);
    expect(SCOPE_KINDS.any).toEqual(INTERACTION_KINDS);
    for (const k of INTERACTION_KINDS) expect(scopeCovers('any', k)).toBe(true);
  });

  it('holds actions and messages, redacts results only, and neither for what a server asks of the client', () => {
    for (const k of INTERACTION_KINDS) {
      const serverRequest = KINDS[k].role === 'sampling' || KINDS[k].role === 'elicitation' || KINDS[k].role === 'roots';
      expect(KINDS[k].holdable).toBe(!isResultKind(k) && !serverRequest);
      expect(KINDS[k].redactable).toBe(isResultKind(k));
    }
  });

  it('fills every column of every row, and a row that leaves one out is refused', () => {
    const columns = Object.keys(KindRowSchema.shape).sort();
    for (const k of INTERACTION_KINDS) {
      expect(KindRowSchema.safeParse(KINDS[k]).success, k).toBe(true);
      expect(Object.keys(KINDS[k]).sort(), k).toEqual(columns);
    }
    // A new kind (or a new column) with a cell left out, or a cell the column does not know, is caught.
    for (const column of columns) {
      const { [column as keyof (typeof KINDS)['tool_call']]: _left, ...rest } = KINDS.tool_call;
      expect(KindRowSchema.safeParse(rest).success, column).toBe(false);
    }
    expect(KindRowSchema.safeParse({ ...KINDS.tool_call, sink: 'somewhere' }).success).toBe(false);
    expect(KindRowSchema.safeParse({ ...KINDS.tool_call, extra: true }).success).toBe(false);
  });

  it('names in payload a field each kind has, and agrees with direction on sinks and reads', () => {
    const shapes = Object.fromEntries(InteractionSchema.options.map((o) => [o.shape.kind.value, o.shape]));
    for (const k of INTERACTION_KINDS) {
      const row = KINDS[k];
      expect(Object.keys(shapes[k]!), k).toContain(row.payload);
      // Data leaves through what goes to a server or another agent; what comes to the client is never a sink.
      expect(row.sink === 'none', k).toBe(row.direction === 'to_client');
      // A read is what comes to the client or another agent.
      if (row.read_of !== 'none') expect(row.direction, k).not.toBe('to_server');
    }
    expect(INTERACTION_KINDS.filter((k) => KINDS[k].sink === 'labels')).toEqual(['tool_call']);
    expect(INTERACTION_KINDS.filter((k) => KINDS[k].read_of === 'tool')).toEqual(['tool_result']);
  });

  it('reads resource_read in applies_to as every resource and prompt request and result', () => {
    expect(expandKinds(['resource_read'])).toEqual(['resource_request', 'resource_result', 'prompt_request', 'prompt_result']);
    expect(expandKinds(['message', 'tool_call', 'tool_call'])).toEqual(['tool_call', 'message']);
  });
});

describe('the Interaction union', () => {
  const base = { agent: 'a', session: 's' };
  it('gives each kind exactly its fields: others are dropped', () => {
    expect(InteractionSchema.parse({ ...base, kind: 'resource_request', server: 'x', uri: 'file:///a', content: 'sk-abc', arguments: { a: 1 } })).toEqual({
      ...base,
      profile: {},
      kind: 'resource_request',
      server: 'x',
      uri: 'file:///a',
    });
    expect(InteractionSchema.parse({ ...base, kind: 'tool_result', tool: 't', arguments: { a: 1 }, content: 'ok' })).not.toHaveProperty('arguments');
  });

  it('rejects a kind without its required fields, and an unknown kind', () => {
    expect(InteractionSchema.safeParse({ ...base, kind: 'prompt_request', server: 'x' }).success).toBe(false);
    expect(InteractionSchema.safeParse({ ...base, kind: 'resource_read', server: 'x', uri: 'u' }).success).toBe(false);
  });

  it('upgrades the pre-union resource_read shapes', () => {
    expect(upgradeLegacyInteraction({ ...base, kind: 'resource_read', server: 'x', uri: 'file:///a', phase: 'request' })).toEqual({ ...base, kind: 'resource_request', server: 'x', uri: 'file:///a' });
    expect(upgradeLegacyInteraction({ ...base, kind: 'resource_read', server: 'x', uri: 'file:///a' })).toMatchObject({ kind: 'resource_request' });
    expect(upgradeLegacyInteraction({ ...base, kind: 'resource_read', server: 'x', uri: 'file:///a', phase: 'response', content: 'c' })).toMatchObject({ kind: 'resource_result', uri: 'file:///a', content: 'c' });
    expect(AnyInteractionSchema.parse({ ...base, kind: 'resource_read', server: 'x', uri: 'prompt:sum', phase: 'request', arguments: { p: 1 } })).toEqual({
      ...base,
      profile: {},
      kind: 'prompt_request',
      server: 'x',
      prompt: 'sum',
      arguments: { p: 1 },
    });
    expect(AnyInteractionSchema.parse({ ...base, kind: 'resource_read', server: 'x', uri: 'prompt:sum', phase: 'response', content: 'c' })).toMatchObject({ kind: 'prompt_result', prompt: 'sum' });
    const call = { ...base, kind: 'tool_call', tool: 't' };
    expect(upgradeLegacyInteraction(call)).toBe(call);
  });
});

describe('a redact rule by kind', () => {
  const def = RuleSchema.parse({ id: 'mask', text: 'mask keys', applies_to: ['resource_read'], formula: '!k', severity: 'high', effect: 'redact' });
  const outcome: RuleOutcome = { id: 'mask', def, onUnknown: 'flag', status: 'violated', witness: { rule: 'mask', predicates: { k: 'true' }, confidence: 1 } };
  const run = (kind: (typeof INTERACTION_KINDS)[number]) => referee({ kind, outcomes: [outcome], threatLevel: 0, denyAtRank: [2, 2, 2, 1, 1] });

  it('masks a result', async () => {
    const v = await run('resource_result');
    expect(v.redact.map((o) => o.id)).toEqual(['mask']);
    expect(v.decision.decision).toBe('allow');
  });

  it('denies a request like any rule, without speaking of a withheld result', async () => {
    for (const kind of ['resource_request', 'prompt_request', 'tool_call', 'message'] as const) {
      const v = await run(kind);
      expect(v.redact).toEqual([]);
      expect(v.decision.decision).toBe('deny');
      expect(v.decision.rules).toEqual(['mask']);
      expect(v.decision.rationale).not.toMatch(/withheld/);
    }
  });
});

describe('docs/interactions.md', () => {
  const doc = readFileSync(join(import.meta.dirname, '../../docs/interactions.md'), 'utf8');
  const rows = (header: string) => {
    const at = doc.indexOf(header);
    const lines = doc.slice(at).split('\n').slice(2);
    const out: string[][] = [];
    for (const l of lines) {
      if (!l.startsWith('|')) break;
      out.push(l.split('|').slice(1, -1).map((c) => c.trim().replace(/`/g, '')));
    }
    return out;
  };

  it('lists every kind as the table says', () => {
    const table = rows('| kind | MCP method |');
    expect(table.map((r) => r[0])).toEqual([...INTERACTION_KINDS]);
    for (const [kind, method, role, , hold, redact] of table) {
      const row = KINDS[kind as (typeof INTERACTION_KINDS)[number]];
      expect([method, role, hold, redact]).toEqual([row.method, row.role, row.holdable ? 'yes' : 'no', row.redactable ? 'yes' : 'no']);
    }
  });

  it('gives the scopes as the table derives them', () => {
    const table = rows('| scope | kinds |');
    for (const [scope, kinds] of table) {
      const name = scope!.split(' ')[0] as keyof typeof SCOPE_KINDS;
      expect(kinds === 'every kind' ? [...INTERACTION_KINDS] : kinds!.split(', ')).toEqual([...SCOPE_KINDS[name]]);
    }
    expect(table.length).toBe(7);
  });
});

describe('approval bindings by kind', () => {
  const base = { agent: 'a', session: 's', profile: {} };
  it('binds the holdable kinds to their exact target, and no result', () => {
    expect(approvalBinding({ ...base, kind: 'resource_request', server: 'x', uri: 'file:///a' })).toMatchObject({ kind: 'resource_request', server: 'x', tool: 'file:///a' });
    const p1 = approvalBinding({ ...base, kind: 'prompt_request', server: 'x', prompt: 'sum', arguments: { path: 'a' } });
    const p2 = approvalBinding({ ...base, kind: 'prompt_request', server: 'x', prompt: 'sum', arguments: { path: 'b' } });
    expect(p1).toMatchObject({ kind: 'prompt_request', server: 'x', tool: 'sum' });
    // An approval of a prompt with some arguments does not approve other arguments.
    expect(p1?.argsHash).not.toBe(p2?.argsHash);
    expect(approvalBinding({ ...base, kind: 'resource_result', server: 'x', uri: 'file:///a', content: 'c' })).toBeUndefined();
    expect(approvalBinding({ ...base, kind: 'prompt_result', server: 'x', prompt: 'sum', content: 'c' })).toBeUndefined();
    expect(approvalBinding({ ...base, kind: 'tool_result', tool: 't', content: 'c' })).toBeUndefined();
  });
});
