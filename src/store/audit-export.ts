import { once } from 'node:events';
import type { AuditApi } from './audit.js';

/** Writes every row from `fromId` on as one JSON line, respecting back-pressure; resolves with the number written. */
export async function exportNdjson(audit: Pick<AuditApi, 'iterate'>, out: NodeJS.WritableStream, fromId = 1): Promise<number> {
  let n = 0;
  for await (const row of audit.iterate(fromId)) {
    if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
    n++;
  }
  return n;
}
