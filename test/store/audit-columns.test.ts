import { describe, expect, it } from 'vitest';
import { previewOfBody, recordedBody, storedBody } from '../../src/store/audit-columns.js';
import { recordInteraction } from '../../src/store/audit-interaction.js';
import type { Interaction } from '../../src/core/types.js';

const call = (agent: string, session: string): Interaction =>
  ({ kind: 'tool_call', agent, session, profile: {}, server: 'fs', tool: 'read_file', arguments: { path: '/data/a.txt' } }) as Interaction;

describe('audit-columns: a body stored without the row’s session', () => {
  const names = ['s1', '-', 'a "quoted" \\ name', 'é😀', 'x'.repeat(200), ',"session":"s1"', '}'];

  it('drops the session the row holds and gives the recorded body back, whatever the names hold', () => {
    for (const agent of names) {
      for (const session of names) {
        const body = recordInteraction(call(agent, session)).body!;
        const stored = storedBody(body, session);
        expect(stored).not.toContain(`"session":${JSON.stringify(session)}`);
        expect(recordedBody(stored, session)).toBe(body);
        // The same interaction in two sessions is one stored body.
        expect(stored).toBe(storedBody(recordInteraction(call(agent, 'other')).body!, 'other'));
        // The preview a body gives does not depend on the session.
        expect(previewOfBody(stored)).toBe(previewOfBody(body));
      }
    }
  });

  it('stores as it is a body whose session is not the row’s, or that is not in the recorded form', () => {
    const long = 'y'.repeat(300);
    const masked = recordInteraction(call('a', long)).body!;
    // A session past the row's cap is cut in the row: the body keeps its own.
    expect(storedBody(masked, `${long.slice(0, 200)}…`)).toBe(masked);
    const body = recordInteraction(call('a', 's1')).body!;
    expect(storedBody(body, 's2')).toBe(body);
    expect(recordedBody(body, 's2')).toBe(body);
    for (const odd of ['{}', '[]', 'not json', '{"agent":"a","kind":"x","session":"s1"}', '{"kind":"x"', '{"kind":"x","agent":"a']) {
      expect(storedBody(odd, 's1')).toBe(odd);
      expect(recordedBody(odd, 's1')).toBe(odd);
    }
  });
});
