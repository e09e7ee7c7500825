import { describe, expect, it } from 'vitest';
import { redactContent } from '../../src/guard/redact.js';

const SECRET = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe('redactContent', () => {
  it('masks text, a resource text, a textual blob, a block _meta and unknown block types; types and MIME types stay', () => {
    const out = redactContent(
      [
        { type: 'text', text: `key ${SECRET}` },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: SECRET } },
        { type: 'resource', resource: { uri: 'file:///b.txt', mimeType: 'text/plain', blob: b64(`k=${SECRET}\n`) } },
        { type: 'text', text: 'ok', _meta: { note: SECRET } },
        { type: 'future_block', payload: { deep: [SECRET] } },
      ],
      [SECRET],
      'sensitive data',
    );
    const shown = JSON.stringify(out);
    expect(shown).not.toContain(SECRET);
    const blob = (out[2] as unknown as { resource: { blob: string; mimeType: string } }).resource;
    expect(Buffer.from(blob.blob, 'base64').toString('utf8')).toBe('k=[REDACTED by QuadGuard: sensitive data]\n');
    expect(blob.mimeType).toBe('text/plain');
    expect(out.map((b) => b.type)).toEqual(['text', 'resource', 'resource', 'text', 'future_block']);
  });

  it('leaves a binary payload and blocks without a match as they are', () => {
    const png = { type: 'image', mimeType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]).toString('base64') };
    const out = redactContent([png, { type: 'text', text: 'nothing here' }], [SECRET], 'x');
    expect(out).toEqual([png, { type: 'text', text: 'nothing here' }]);
  });
});
