import { request } from 'node:http';

/** A raw HTTP request (fetch cannot set Host); resolves with status, headers and body text. */
export function rawRequest(
  port: number,
  path: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    r.on('error', reject);
    if (opts.body !== undefined) r.write(opts.body);
    r.end();
  });
}

/** A parsed Server-Sent Event. */
export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

/**
 * Reads an SSE response body and collects events; `until` resolves once `pred` holds for the events so far
 * (or rejects after `ms`). `close` aborts the request.
 */
export async function openStream(url: string, headers: Record<string, string> = {}) {
  const ctrl = new AbortController();
  const res = await fetch(url, { headers, signal: ctrl.signal });
  const events: SseEvent[] = [];
  const waiters: Array<() => void> = [];
  if (res.ok && res.body) {
    void (async () => {
      const decoder = new TextDecoder();
      let buf = '';
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          buf += decoder.decode(chunk, { stream: true });
          let at: number;
          while ((at = buf.indexOf('\n\n')) !== -1) {
            const frame = buf.slice(0, at);
            buf = buf.slice(at + 2);
            const e: Partial<SseEvent> & { event: string } = { event: 'message' };
            let data = '';
            for (const line of frame.split('\n')) {
              if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('id: ')) e.id = line.slice(4);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (data) {
              events.push({ ...e, data: JSON.parse(data) } as SseEvent);
              for (const w of waiters.splice(0)) w();
            }
          }
        }
      } catch {
        /* aborted */
      }
    })();
  }
  return {
    res,
    events,
    async until(pred: (events: SseEvent[]) => boolean, ms = 8000): Promise<void> {
      const end = Date.now() + ms;
      while (!pred(events)) {
        if (Date.now() > end) throw new Error(`stream: condition not met; events: ${JSON.stringify(events.map((e) => e.event))}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
    close: () => ctrl.abort(),
  };
}
