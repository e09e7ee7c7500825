/**
 * `jsonBody` against `express.json` (body-parser), each on a real express server on 127.0.0.1 with the proxy's error
 * answers: the same raw requests (ordinary, empty, a byte-order mark, leading whitespace, a bare number, malformed,
 * over the limit by Content-Length and by its bytes, chunked, gzip, a charset) must get the same status and body, and
 * a client that stops mid-body must not stop the server.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody, sizeOf } from '../../src/proxy/json-body.js';

const LIMIT = '1kb';

async function start(lean: boolean): Promise<{ port: number; server: Server }> {
  const app = express();
  const parser = express.json({ limit: LIMIT, type: () => true });
  app.post('/mcp', lean ? jsonBody(LIMIT, parser) : parser, (req: Request, res: Response) => void res.json({ body: req.body as unknown }));
  app.use((err: { type?: string; status?: number }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.type === 'entity.too.large' ? 413 : (err.status ?? 500)).json({ type: err.type ?? null });
  });
  const server = await new Promise<Server>((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  return { port: (server.address() as AddressInfo).port, server };
}

/** One raw HTTP/1.1 request (exact bytes and headers); the status line's code and the body. */
function raw(port: number, head: string[], body: Buffer | string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sock = connect(port, '127.0.0.1');
    let out = '';
    sock.on('data', (c) => (out += c.toString('utf8')));
    sock.on('end', () => resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(out)?.[1]), body: out.slice(out.indexOf('\r\n\r\n') + 4) }));
    sock.on('error', reject);
    sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${head.join('\r\n')}\r\n\r\n`);
    sock.write(body); // not end(): a half-closed socket can lose an answer computed asynchronously (a gunzip)
  });
}

const sized = (body: Buffer | string, more: string[] = ['Content-Type: application/json']) => ({ head: [...more, `Content-Length: ${Buffer.byteLength(body)}`], body });
const CALL = '{"jsonrpc":"2.0","id":1,"method":"tools/list"}';
const chunked = (body: string) => `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

const CASES: Record<string, { head: string[]; body: Buffer | string }> = {
  ordinary: sized(CALL),
  'no content type': sized(CALL, []),
  'another content type': sized(CALL, ['Content-Type: text/plain']),
  empty: sized(''),
  'byte-order mark': sized(`\uFEFF${CALL}`),
  'leading whitespace': sized(` \n\t${CALL}`),
  'a batch': sized(`[${CALL},${CALL}]`),
  'a bare number': sized('42'),
  'a string': sized('"x"'),
  malformed: sized('{"jsonrpc":'),
  'not UTF-8 text': sized(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
  'unicode text': sized('{"text":"ünïcødé ✓ 日本"}'),
  'over the limit': sized(`{"x":"${'a'.repeat(2000)}"}`),
  'exactly the limit': sized(`{"x":"${'a'.repeat(sizeOf(LIMIT) - 8)}"}`),
  chunked: { head: ['Content-Type: application/json', 'Transfer-Encoding: chunked'], body: chunked(CALL) },
  'chunked over the limit': { head: ['Content-Type: application/json', 'Transfer-Encoding: chunked'], body: chunked(`{"x":"${'a'.repeat(2000)}"}`) },
  gzip: sized(gzipSync(CALL), ['Content-Type: application/json', 'Content-Encoding: gzip']),
  'a UTF-8 charset': sized(CALL, ['Content-Type: application/json; charset=utf-8']),
  'another charset': sized(CALL, ['Content-Type: application/json; charset=latin1']),
};

describe('jsonBody reads as express.json does', () => {
  let parser: Awaited<ReturnType<typeof start>>;
  let lean: Awaited<ReturnType<typeof start>>;
  beforeAll(async () => {
    parser = await start(false);
    lean = await start(true);
  });
  afterAll(() => {
    parser.server.close();
    lean.server.close();
  });

  it.each(Object.entries(CASES))('%s', async (_name, c) => {
    const want = await raw(parser.port, c.head, c.body);
    const got = await raw(lean.port, c.head, c.body);
    expect(got).toEqual(want);
    expect(want.status).toBeGreaterThan(0);
  });

  it('keeps serving after a client stops in the middle of a body', async () => {
    await new Promise<void>((resolve) => {
      const sock = connect(lean.port, '127.0.0.1', () => {
        sock.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"a":');
        setTimeout(() => sock.destroy(), 50);
      });
      sock.on('close', () => resolve());
    });
    expect(await raw(lean.port, sized(CALL).head, CALL)).toEqual({ status: 200, body: expect.stringContaining('tools/list') as string });
  });

  it('reads the body limit as body-parser does, and refuses one it cannot read', () => {
    expect(sizeOf('4mb')).toBe(4 * 1024 * 1024);
    expect(sizeOf('64KB')).toBe(64 * 1024);
    expect(sizeOf(100)).toBe(100);
    expect(() => sizeOf('4 GB')).toThrow(/body limit/);
  });
});
