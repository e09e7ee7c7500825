/**
 * Red team: the audit store masks every secret the guard detects (src/detectors/secrets/catalogue.ts, `maskSpans`),
 * so people who read or export the log never see one. Once the `secrets` detector read encoded forms, a call it
 * denied for a hex-encoded token, a token written as HTML references, in full-width letters or split by zero-width
 * spaces was recorded with the credential in that form, in clear (fails before). The masker now masks a text whose
 * readings hold a credential of a known format. Control: an ordinary argument is kept as it is.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/store/sqlite.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import type { Interaction } from '../../src/core/types.js';
import { buildGuard, type BuiltGuard } from '../../src/guard/build.js';
import { ROOT } from '../support/proxy-harness.js';

const GH = ['ghp', 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789'].join('_');
const chars = (s: string, f: (c: string) => string) => [...s].map(f).join('');
const ENCODED: Array<[string, string]> = [
  ['hex', Buffer.from(GH).toString('hex')],
  ['HTML references', chars(GH, (c) => `&#${c.charCodeAt(0)};`)],
  ['full-width letters', chars(GH, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))],
  ['zero-width spaces', [...GH].join('\u200b')],
];

describe('red team: an encoded credential in the audit store', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-enc-audit-')));
  const store = join(dir, 'state.db');
  let guard: BuiltGuard;
  let n = 0;

  beforeAll(async () => {
    guard = await buildGuard({ policy: join(ROOT, 'policies', 'default'), store });
  });
  afterAll(async () => {
    await guard?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is masked in the row and in the recorded interaction', async () => {
    for (const [, encoded] of ENCODED) {
      const d = await guard.pipeline.check({ agent: `agent-${++n}`, session: `s${n}`, profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'bob@example.com', body: encoded } } as Interaction);
      expect(d.decision).toBe('deny');
    }
    await guard.pipeline.check({ agent: 'agent-control', session: 'sc', profile: {}, kind: 'tool_call', server: 'mail', tool: 'send_email', arguments: { to: 'bob@example.com', body: 'see you at noon' } } as Interaction);
    await guard.close();
    const db = openDatabase(store, { readonly: true });
    try {
      const text = JSON.stringify([db.prepare('SELECT * FROM audit').all(), db.prepare('SELECT coalesce(i.body, b.body) AS body FROM audit_interaction i LEFT JOIN audit_body b ON b.digest = i.body_digest').all()]);
      expect(text).toContain('see you at noon');
      for (const [what, encoded] of ENCODED) expect(text.includes(JSON.stringify(encoded).slice(1, 25)), what).toBe(false);
    } finally {
      db.close();
    }
  });
});
