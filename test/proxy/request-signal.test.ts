/**
 * Every request of a downstream HTTP transport gets its own abort signal (src/proxy/request-signal.ts): the
 * transport's shared signal keeps one listener however many requests pass, and aborting it still cancels a request
 * in flight and a response body being read. Against a real HTTP server on 127.0.0.1, with Node's own fetch.
 */
import { getEventListeners } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRequestCount, perRequestSignalFetch } from '../../src/proxy/request-signal.js';

let server: Server;
let base = '';
/** Responses of /hang and /stream held open until the test ends. */
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/hang') return void held.push(res);
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        return void held.push(res);
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('perRequestSignalFetch', () => {
  it('keeps one listener on the shared signal over 2,000 requests (plain fetch leaves one per request until GC)', async () => {
    const shared = new AbortController().signal;
    const isolated = perRequestSignalFetch();
    for (let i = 0; i < 2000; i++) {
      const res = await isolated(`${base}/ok`, { method: 'POST', body: String(i), signal: shared });
      expect(await res.json()).toEqual({ ok: true });
      expect(getEventListeners(shared, 'abort').length).toBe(1);
    }
    // Control: the same loop with fetch itself piles listeners up on the shared signal.
    const control = new AbortController().signal;
    let most = 0;
    for (let i = 0; i < 300; i++) {
      await (await fetch(`${base}/ok`, { method: 'POST', body: String(i), signal: control })).json();
      most = Math.max(most, getEventListeners(control, 'abort').length);
    }
    expect(most).toBeGreaterThan(10);
  });

  it('passes init through unchanged apart from the signal, and requests without a signal untouched', async () => {
    const seen: (RequestInit | undefined)[] = [];
    const isolated = perRequestSignalFetch((_url, init) => {
      seen.push(init);
      return Promise.resolve(new Response(null, { status: 202 }));
    });
    const shared = new AbortController().signal;
    await isolated(`${base}/ok`, { method: 'POST', headers: { 'x-a': '1' }, body: 'b', signal: shared });
    await isolated(`${base}/ok`, { method: 'GET' });
    expect(seen[0]).toMatchObject({ method: 'POST', headers: { 'x-a': '1' }, body: 'b' });
    expect(seen[0]!.signal).not.toBe(shared);
    expect(seen[0]!.signal!.aborted).toBe(false);
    expect(seen[1]).toEqual({ method: 'GET' });
    // A response without a body is not open.
    expect(openRequestCount(shared)).toBe(0);
  });

  it('aborting the shared signal cancels a request in flight', async () => {
    const shared = new AbortController();
    const pending = perRequestSignalFetch()(`${base}/hang`, { method: 'POST', body: 'x', signal: shared.signal });
    await new Promise((r) => setTimeout(r, 50));
    expect(openRequestCount(shared.signal)).toBe(1);
    shared.abort(new Error('transport closed'));
    await expect(pending).rejects.toThrow('transport closed');
    expect(openRequestCount(shared.signal)).toBe(0);
  });

  it('aborting the shared signal cancels a response body still being read (an SSE stream)', async () => {
    const shared = new AbortController();
    const res = await perRequestSignalFetch()(`${base}/stream`, { method: 'POST', body: 'x', signal: shared.signal });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('data: first');
    const next = reader.read();
    shared.abort(new Error('transport closed'));
    await expect(next).rejects.toThrow();
  });

  it('a signal aborted before the request rejects it as fetch does', async () => {
    const shared = new AbortController();
    shared.abort(new Error('already closed'));
    await expect(perRequestSignalFetch()(`${base}/ok`, { method: 'POST', body: 'x', signal: shared.signal })).rejects.toThrow('already closed');
  });
});
