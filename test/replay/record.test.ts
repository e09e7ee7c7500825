import { describe, expect, it } from 'vitest';
import { InteractionSchema } from '../../src/core/types.js';
import { INTERACTION_CAP, recordInteraction, ROW_NAME_CAP } from '../../src/store/audit-interaction.js';

const base = { agent: 'a', session: 's', profile: { role: 'admin' } };

describe('recorded interactions (audit_interaction)', () => {
  it('keeps the fields replay needs, without the profile', () => {
    const i = InteractionSchema.parse({ ...base, kind: 'message', sender: 'x', recipient: 'y', content: 'hello' });
    const r = recordInteraction(i);
    expect(JSON.parse(r.body!)).toEqual({ kind: 'message', agent: 'a', session: 's', content: 'hello', sender: 'x', recipient: 'y' });
    expect(r).toMatchObject({ masked: false, truncated: false });
  });

  it('masks secrets in values and keys and says so', () => {
    const key = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const r = recordInteraction(InteractionSchema.parse({ ...base, kind: 'tool_call', server: 's', tool: 't', arguments: { [key]: 1, nested: [{ v: `token ${key}` }] } }));
    expect(r.body).not.toContain(key);
    expect(r.masked).toBe(true);
  });

  it('masks a value under a secret-sounding argument name, which alone looks harmless', () => {
    const r = recordInteraction(InteractionSchema.parse({ ...base, kind: 'tool_call', server: 'db', tool: 'connect', arguments: { host: 'db1', password: 'hunter22', conn: { api_key: 'zz9plural' } } }));
    expect(r.body).not.toContain('hunter22');
    expect(r.body).not.toContain('zz9plural');
    expect(JSON.parse(r.body!).arguments.host).toBe('db1');
    expect(r.masked).toBe(true);
  });

  it('records as they are the names the audit row keeps in clear (a stdio session id looks random), up to the row\'s cap', () => {
    const session = 'stdio-85da3cba-e3c6-4d89-8e61-c551588f4160';
    const r = recordInteraction(InteractionSchema.parse({ ...base, session, kind: 'tool_call', server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' } }));
    expect(JSON.parse(r.body!).session).toBe(session);
    expect(r.masked).toBe(false);
    // Past the cap the row keeps only a prefix, so the body masks the name as any other string.
    const key = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    const long = `${'s'.repeat(ROW_NAME_CAP)} ${key}`;
    const cut = recordInteraction(InteractionSchema.parse({ ...base, agent: long, kind: 'tool_call', server: 'ws', tool: 'read_file', arguments: {} }));
    expect(cut.body).not.toContain(key);
    expect(cut.masked).toBe(true);
  });

  it('caps a 1 MB result by cutting strings, flagged, and stays valid JSON', () => {
    const big = 'lorem ipsum '.repeat(90_000);
    const r = recordInteraction(InteractionSchema.parse({ ...base, kind: 'tool_result', server: 's', tool: 't', content: [{ type: 'text', text: big }, { type: 'text', text: big }] }));
    expect(r.truncated).toBe(true);
    expect(r.body!.length).toBeLessThanOrEqual(INTERACTION_CAP);
    expect(JSON.parse(r.body!).content).toHaveLength(2);
  });

  it('gives up (body null, truncated) when even cut strings cannot fit', () => {
    const args = Object.fromEntries(Array.from({ length: 5000 }, (_, k) => [`k${k}`, 'x'.repeat(100)]));
    const r = recordInteraction(InteractionSchema.parse({ ...base, kind: 'tool_call', server: 's', tool: 't', arguments: args }));
    expect(r).toEqual({ body: null, masked: false, truncated: true });
  });
});
