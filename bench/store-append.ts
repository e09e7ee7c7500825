/**
 * Audit append throughput: single appends (one IMMEDIATE transaction each, as the proxy does per interaction)
 * into a real file in a temporary folder, WAL + synchronous=NORMAL (and FULL with `--full`).
 *
 *   npx tsx bench/store-append.ts [--rows 20000] [--full]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, pragma } from '../src/store/sqlite.js';
import { openStore, type AuditEntry } from '../src/store/index.js';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '20000' }, full: { type: 'boolean', default: false } } });
const rows = Number(values.rows);
const dir = mkdtempSync(join(tmpdir(), 'qg-bench-'));
const store = openStore(join(dir, 'state.db'), undefined, { synchronous: values.full ? 'FULL' : 'NORMAL' });

/** A typical tool call: a few arguments, one witness on denials (~400-byte rows). */
const entry = (i: number): AuditEntry => ({
  agent: 'planner',
  session: 'sess-1',
  kind: 'tool_call',
  server: 'fs',
  tool: 'write_file',
  payload: { path: `/work/out/${i}.txt`, content: `line ${i} of the report, nothing secret here`, mode: 'overwrite' },
  decision: i % 10 === 0 ? 'deny' : 'allow',
  rationale: i % 10 === 0 ? 'Blocked by QuadGuard: rule no-secret-publish (sensitive_info, publish_content)' : 'no rule violated',
  rules: i % 10 === 0 ? ['no-secret-publish'] : [],
  witness: i % 10 === 0 ? [{ rule: 'no-secret-publish', predicates: { sensitive_info: 'true', publish_content: 'true' }, confidence: 1 }] : [],
  threatLevel: 0,
  elapsedMs: 0.42,
  policyHash: 'b3f1c2d4e5',
  source: 'pipeline',
});

for (let i = 0; i < 500; i++) await store.audit.append(entry(i)); // warm-up
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
for (let i = 0; i < rows; i++) await store.audit.append(entry(i));
const ns = Number(process.hrtime.bigint() - t0);
const cpu = process.cpuUsage(cpu0);
const v0 = process.hrtime.bigint();
const check = await store.audit.verify();
const verifyMs = Number(process.hrtime.bigint() - v0) / 1e6;
await store.close();

// Baseline in the same conditions: a bare autocommit INSERT of a ~400-byte row, no hashing, masking or chain.
const raw = openDatabase(join(dir, 'raw.db'));
pragma(raw, 'journal_mode = WAL');
pragma(raw, `synchronous = ${values.full ? 'FULL' : 'NORMAL'}`);
raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, ts INTEGER, agent TEXT, body TEXT, hash TEXT) STRICT');
const ins = raw.prepare('INSERT INTO t (ts, agent, body, hash) VALUES (?, ?, ?, ?)');
const body = JSON.stringify(entry(1));
const b0 = process.hrtime.bigint();
for (let i = 0; i < rows; i++) ins.run(Date.now(), 'planner', body, 'f'.repeat(64));
const rawNs = Number(process.hrtime.bigint() - b0);
raw.close();
rmSync(dir, { recursive: true, force: true });

const perRow = ns / rows / 1000;
console.log(
  `audit append (${values.full ? 'FULL' : 'NORMAL'}): ${rows} single appends, ${Math.round(rows / (ns / 1e9))} rows/s, ` +
    `${perRow.toFixed(1)} µs/row wall, ${((cpu.user + cpu.system) / rows).toFixed(1)} µs/row CPU; verify of ${check.rows} rows ${verifyMs.toFixed(0)} ms (ok=${check.ok})`,
);
console.log(`baseline bare INSERT: ${(rawNs / rows / 1000).toFixed(1)} µs/row wall; audit append costs ${(ns / rawNs).toFixed(1)}× a bare insert`);
