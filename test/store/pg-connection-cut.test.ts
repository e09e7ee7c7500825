/**
 * A PostgreSQL connection cut by the server at the moment the pool hands it out (a backend terminated, a server
 * stopping): the cut arrives in the same read as the connection's first ReadyForQuery, before the store's
 * transaction listens on it. It must be an error of that call, never an uncaught exception that ends the proxy.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openPgStore } from '../../src/store/pg/index.js';
import { usePostgres } from '../support/postgres.js';
import { tcpRelay } from '../support/tcp-relay.js';
import { entry, tempDir } from './helpers.js';

const server = usePostgres();

/** A backend's FATAL "terminating connection due to administrator command" (SQLSTATE 57P01), as the server sends it. */
function terminated(): Buffer {
  const field = (code: string, value: string) => Buffer.concat([Buffer.from(code, 'latin1'), Buffer.from(`${value}\0`, 'utf8')]);
  const body = Buffer.concat([field('S', 'FATAL'), field('V', 'FATAL'), field('C', '57P01'), field('M', 'terminating connection due to administrator command'), Buffer.from([0])]);
  const head = Buffer.alloc(5);
  head.write('E', 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/**
 * A relay on 127.0.0.1 that, when armed, cuts the next new connection: it passes the server's messages up to that
 * connection's first ReadyForQuery, then the cut in the same write, then closes.
 */
async function handOutCutRelay(port: number) {
  const state = { armed: false, cuts: 0 };
  const relay = await tcpRelay(port, (client, upstream) => {
    const cutThis = state.armed;
    state.armed = false;
    let pending = Buffer.alloc(0);
    let done = false;
    client.on('data', (chunk: Buffer) => upstream.write(chunk));
    upstream.on('data', (chunk: Buffer) => {
      if (done) return;
      if (!cutThis) return void client.write(chunk);
      pending = Buffer.concat([pending, chunk]);
      // Server messages: a type byte, then a length that counts itself. ReadyForQuery is 'Z'; the ones before it
      // (authentication, parameters) pass as they come.
      let at = 0;
      while (at + 5 <= pending.length) {
        const end = at + 1 + pending.readInt32BE(at + 1);
        if (end > pending.length) break;
        if (pending[at] === 0x5a) {
          done = true;
          state.cuts++;
          client.end(Buffer.concat([pending.subarray(0, end), terminated()]));
          upstream.destroy();
          return;
        }
        at = end;
      }
      client.write(pending.subarray(0, at));
      pending = pending.subarray(at);
    });
  });
  return Object.assign(state, { port: relay.port, dropAll: relay.dropAll, close: relay.close });
}

describe('a PostgreSQL connection cut as the pool hands it out', () => {
  it('fails that call or retries it, never the process; the store answers again at once', async () => {
    const url = await server.freshDatabase('cut');
    const relay = await handOutCutRelay(server.port);
    const t = tempDir();
    const keyFile = join(t.dir, 'audit.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    const s = await openPgStore(url.replace(`:${server.port}/`, `:${relay.port}/`), undefined, { auditKeyFile: keyFile, auditHeadFile: join(t.dir, 'head') });
    try {
      // The pool's connections are dropped, so the next append's transaction takes a new one: cut as it is handed out.
      relay.armed = true;
      relay.dropAll();
      const failures: string[] = [];
      for (let i = 0; i < 20 && relay.cuts === 0; i++) {
        await s.audit.append(entry(i)).catch((err: Error) => failures.push(err.message));
      }
      expect(relay.cuts).toBe(1);
      for (const m of failures) expect(m).toMatch(/PostgreSQL|connection|terminat/i);
      await s.state.setThreat('after', 0.3, 0);
      expect((await s.state.getThreat('after')).tau).toBe(0.3);
    } finally {
      await s.close();
      relay.close();
      t.cleanup();
    }
  }, 60_000);
});
