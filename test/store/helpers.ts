import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../../src/store/index.js';

/** A fresh temporary folder; `cleanup` removes it. */
export function tempDir(): { dir: string; file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'qg-store-'));
  return { dir, file: join(dir, 'nested', 'state.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A plausible audit entry, numbered. */
export function entry(i: number, over: Partial<AuditEntry> = {}): AuditEntry {
  return {
    agent: 'planner',
    session: 's1',
    kind: 'tool_call',
    server: 'fs',
    tool: 'read_file',
    payload: { path: `/data/${i}.txt` },
    decision: i % 3 === 0 ? 'deny' : 'allow',
    rationale: `decision ${i}`,
    rules: i % 3 === 0 ? ['no-secret-publish'] : [],
    witness: i % 3 === 0 ? [{ rule: 'no-secret-publish', predicates: { sensitive_info: 'true' }, confidence: 1 }] : [],
    threatLevel: 1,
    elapsedMs: 0.5 + i,
    policyHash: 'abc123',
    ...over,
  };
}

/** Every item of an async iterable (`store.audit.iterate`), in order (Array.fromAsync needs Node 22). */
export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
