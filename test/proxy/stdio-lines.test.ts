/**
 * `LineReadBuffer` against the SDK's `ReadBuffer`: the same stream of lines (messages of every kind, unusual shapes,
 * lines that are not JSON or not messages, CRLF, characters cut between chunks), cut into the same random chunks and
 * read the way the SDK's stdio client transport reads (every message after each chunk, an error reported and the
 * reading continued), must give the same messages and errors in the same order; and the same size limit.
 */
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { describe, expect, it } from 'vitest';
import { LineReadBuffer } from '../../src/proxy/stdio-lines.js';
import { prng } from '../prng.js';

const LINES = [
  JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo wörld — ✓ 😀'.repeat(40) }] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 'x', result: { _meta: { progressToken: 1, extra: { a: 1 } }, tools: [] } }),
  JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'roots/list', params: { _meta: { progressToken: 'p' } } }),
  JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(3000) } }),
  JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32000, message: 'no', data: { why: 1 }, extra: 2 } }),
  JSON.stringify({ jsonrpc: '2.0', id: 4, result: {}, extra: true }),
  JSON.stringify({ jsonrpc: '1.0', id: 5, result: {} }),
  JSON.stringify({ jsonrpc: '2.0', id: 6.5, method: 'ping' }),
  '{"jsonrpc":"2.0","id":7,"result":{}}\r',
  'not json at all',
  '',
  '[1,2,3]',
  '{"jsonrpc":"2.0","id":8,"result":{"text":"ünïcödé ✓✓✓"}}',
];

type Event = { message: unknown } | { error: string };

/** Reads `chunks` as the SDK's stdio client transport does (`processReadBuffer` after every `append`). */
function drive(buffer: ReadBuffer, chunks: Buffer[]): Event[] {
  const events: Event[] = [];
  for (const chunk of chunks) {
    try {
      buffer.append(chunk);
    } catch (e) {
      events.push({ error: `append: ${(e as Error).message}` });
      continue;
    }
    for (;;) {
      try {
        const m = buffer.readMessage();
        if (m === null) break;
        events.push({ message: m });
      } catch (e) {
        events.push({ error: `${(e as Error).name}: ${(e as Error).message}` });
      }
    }
  }
  return events;
}

/** `bytes` cut at random places (a cut may fall inside a UTF-8 character). */
function cut(bytes: Buffer, next: () => number, largest: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = 1 + Math.floor(next() * largest);
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  return chunks;
}

describe('LineReadBuffer reads as the SDK ReadBuffer', () => {
  it('gives the same messages and errors on 200 random streams and chunkings', () => {
    const rnd = prng(30);
    const next = () => rnd(1_000_000) / 1_000_000;
    for (let round = 0; round < 200; round++) {
      const lines = Array.from({ length: 1 + Math.floor(next() * 12) }, () => LINES[Math.floor(next() * LINES.length)]!);
      const stream = Buffer.from(lines.map((l) => `${l}\n`).join('') + (next() < 0.3 ? '{"jsonrpc":"2.0","id":99,"res' : ''), 'utf8');
      const chunks = cut(stream, next, next() < 0.5 ? 7 : 4096);
      expect(drive(new LineReadBuffer(), chunks)).toEqual(drive(new ReadBuffer(), chunks));
    }
  });

  it('refuses past the same size limit with the same error, and reads on after it', () => {
    const line = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { t: 'x'.repeat(200) } })}\n`);
    const small = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 2, result: { t: 'y'.repeat(40) } })}\n`);
    // Lines read as they come never add up to the limit; one line longer than it does.
    const chunks = [...Array<Buffer>(20).fill(small), line.subarray(0, 100), line.subarray(100), Buffer.alloc(300, 0x20), line, small];
    const ours = drive(new LineReadBuffer(256), chunks);
    expect(ours).toEqual(drive(new ReadBuffer({ maxBufferSize: 256 }), chunks));
    expect(ours.filter((e) => 'error' in e)).toEqual([{ error: 'append: ReadBuffer exceeded maximum size of 256 bytes' }]);
    expect(ours.filter((e) => 'message' in e)).toHaveLength(23);
  });
});
