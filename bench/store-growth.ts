/**
 * Store growth under re-reads (issue: a store that does not grow with traffic): a mixed read load through the
 * whole guard (default book, SQLite file, audit on), with a clock that moves one simulated second per call, so a
 * text re-read keeps crossing the data-flow refresh. Prints the store's bytes per call over the first simulated
 * minute and over the minutes after it, and the fingerprint rows. No timing: the figures do not depend on load.
 *
 * Run: npx tsx bench/store-growth.ts [--calls 3000] [--sessions 16] [--files 40]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, pragma } from '../src/store/sqlite.js';
import { InteractionSchema, type Interaction } from '../src/core/types.js';
import { buildGuard } from '../src/guard/build.js';
import { STORED_COLUMNS } from '../src/store/audit-columns.js';
import { ROOT } from './common.js';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '3000' }, sessions: { type: 'string', default: '16' }, files: { type: 'string', default: '40' } } });
const calls = Number(values.calls);
const sessions = Number(values.sessions);
const files = Number(values.files);
const WORDS = 'acquisition board budget cluster deadline engineer forecast harbour invoice journal kernel ledger margin network office payroll quarter revenue salary ticket upgrade vendor warehouse'.split(' ');
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const text = (chars: number) => {
  let s = '';
  while (s.length < chars) s += `${WORDS[Math.floor(rand() * WORDS.length)]} ${Math.floor(rand() * 100000)} `;
  return s.slice(0, chars);
};
// 85% small files (2 KB) and 15% large ones (~200 KB), read again and again, as the soak mix does.
const contents = Array.from({ length: files }, (_, n) => text(n % 7 === 0 ? 200_000 : 2_000));

const dir = mkdtempSync(join(tmpdir(), 'qg-bench-growth-'));
try {
  let clock = Date.parse('2026-11-26T12:00:00Z');
  const file = join(dir, 'state.db');
  const guard = await buildGuard({
    policy: join(ROOT, 'policies', 'default'),
    store: file,
    now: () => clock,
    settings: { watcher: { quarantine: false, burst_threshold: 1_000_000_000 } },
  });
  // Pages in use, after a checkpoint from a second connection (the WAL's size goes up and down with checkpoints).
  const bytes = () => {
    const db = openDatabase(file);
    try {
      pragma(db, 'wal_checkpoint(TRUNCATE)');
      const pages = (pragma(db, 'page_count', { simple: true }) as number) - (pragma(db, 'freelist_count', { simple: true }) as number);
      return pages * (pragma(db, 'page_size', { simple: true }) as number);
    } finally {
      db.close();
    }
  };
  const tables = () => {
    const db = openDatabase(file, { readonly: true });
    try {
      return db.prepare("SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 6").all() as Array<{ name: string; bytes: number }>;
    } catch {
      return [];
    } finally {
      db.close();
    }
  };
  /** Bytes of the data-flow tables and their indexes (dbstat), after a checkpoint. */
  const flowBytes = () => {
    bytes();
    const db = openDatabase(file, { readonly: true });
    try {
      return (db.prepare("SELECT COALESCE(SUM(pgsize), 0) AS n FROM dbstat WHERE name LIKE 'flow%' OR name LIKE 'sqlite_autoindex_flow%'").get() as { n: number }).n;
    } catch {
      return NaN;
    } finally {
      db.close();
    }
  };
  let flowAtMinute = 0;
  const read = (n: number, session: number): Interaction =>
    InteractionSchema.parse({ agent: 'soak', session: `s${session}`, profile: {}, kind: 'tool_result', server: 'files', tool: 'read_file', content: [{ type: 'text', text: contents[n]! }] });
  let atMinute = 0;
  let callsAtMinute = 0;
  for (let c = 0; c < calls; c++) {
    clock += 1000 / sessions;
    await guard.pipeline.check(read(Math.floor(rand() * files), c % sessions));
    if (atMinute === 0 && c + 1 >= sessions * 60) {
      atMinute = bytes();
      flowAtMinute = flowBytes();
      callsAtMinute = c + 1;
    }
    if ((c + 1) % 1000 === 0) process.stderr.write(`store-growth: ${c + 1}/${calls} calls\n`);
  }
  await guard.close();
  const db = openDatabase(file, { readonly: true });
  const rows = (db.prepare('SELECT COUNT(*) AS n FROM flow_prints').get() as { n: number }).n;
  const reads = (db.prepare('SELECT COUNT(*) AS n FROM flow_reads').get() as { n: number }).n;
  // What an audit row holds: the mean bytes of each stored column over every row (text as stored, numbers as their
  // digits, null as 0).
  const auditRows = (db.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number }).n;
  const columns = db.prepare(`SELECT ${STORED_COLUMNS.map((c) => `sum(coalesce(length(${c}), 0)) * 1.0 / max(count(*), 1) AS ${c}`).join(', ')} FROM audit`).get() as Record<string, number | null>;
  db.close();
  const end = bytes();
  const flowEnd = flowBytes();
  console.log(`store growth: ${calls} private reads of ${files} files by ${sessions} sessions, one simulated second per ${sessions} calls`);
  console.log(`  first simulated minute: ${callsAtMinute} calls, ${(atMinute / 1024).toFixed(0)} KiB, ${(atMinute / Math.max(1, callsAtMinute) / 1024).toFixed(2)} KiB per call`);
  if (calls > callsAtMinute && callsAtMinute > 0) {
    console.log(`  after it: ${calls - callsAtMinute} calls, ${((end - atMinute) / 1024).toFixed(0)} KiB, ${((end - atMinute) / (calls - callsAtMinute) / 1024).toFixed(2)} KiB per call`);
  }
  console.log(`  data flow at the end: ${reads} reads, ${rows} fingerprint rows; largest tables: ${tables().map((t) => `${t.name} ${(t.bytes / 1024).toFixed(0)} KiB`).join(', ')}`);
  if (calls > callsAtMinute && callsAtMinute > 0) {
    console.log(`  bytes per call after the first minute: ${((end - atMinute) / (calls - callsAtMinute)).toFixed(0)} B (target ≤ 1024 B), of which data flow ${((flowEnd - flowAtMinute) / (calls - callsAtMinute)).toFixed(0)} B (its tables: ${(flowAtMinute / 1024).toFixed(0)} KiB at the minute, ${(flowEnd / 1024).toFixed(0)} KiB at the end)`);
  }
  const sizes = Object.entries(columns).filter(([, v]) => v !== null && v > 0).sort((a, b) => b[1]! - a[1]!);
  console.log(`  audit rows: ${auditRows} (${(auditRows / calls).toFixed(2)} per call); mean bytes per column: ${sizes.map(([k, v]) => `${k} ${v!.toFixed(0)}`).join(', ')}; sum ${sizes.reduce((n, [, v]) => n + v!, 0).toFixed(0)} B`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
