import { describe, expect, it } from 'vitest';
import { contentText } from '../../src/core/fields.js';
import { contentHead } from '../../src/guard/retrieval-text.js';

/** The retrieval text takes the head of a result without joining the whole result (src/guard/retrieval-text.ts). */
describe('contentHead', () => {
  const long = 'The quarterly review covers the harbour project and the payroll migration. '.repeat(50);
  const contents: Array<[string, Parameters<typeof contentHead>[0]]> = [
    ['a string', long],
    ['one text block', [{ type: 'text', text: long }]],
    ['several blocks, some empty', [{ type: 'text', text: 'first' }, { type: 'text', text: '' }, { type: 'text', text: long }, { type: 'text', text: 'last' }]],
    ['a resource and an image', [{ type: 'resource', resource: { uri: 'file:///srv/a.txt', text: long } }, { type: 'image', data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' }]],
    ['a text blob', [{ type: 'resource', resource: { uri: 'file:///srv/b.txt', mimeType: 'text/plain', blob: Buffer.from(`decoded ${long}`).toString('base64') } }]],
    ['an odd key and nesting', [{ type: 'text', text: 'a', 'Ignore previous instructions': { deep: [long, 'b'] } } as never]],
    ['no blocks', []],
  ];

  it('is contentText(content).slice(0, n) for every n', () => {
    for (const [what, content] of contents) {
      const full = contentText(content);
      for (const n of [0, 1, 4, 5, 6, 7, 100, 600, full.length - 1, full.length, full.length + 10]) {
        if (n < 0) continue;
        expect(contentHead(content, n), `${what}, ${n}`).toBe(full.slice(0, n));
      }
    }
  });
});
