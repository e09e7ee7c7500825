/**
 * Each `quadguard demo` scenario runs as a test: it must exit 0 (the guard decided as the scenario expects)
 * and its transcript must show the key moments a reader looks for.
 */
import { spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CLI } from '../support/proxy-harness.js';
import { runDemo } from '../../src/cli/demo.js';
import { runCli } from '../../src/cli/demos/kit.js';

async function demo(name?: string): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  const code = await runDemo({ out: sink, ...(name ? { name } : {}) });
  return { code, out };
}

describe('quadguard demo scenarios', () => {
  it('tour (no argument): the default policy allows and denies with rationales', async () => {
    const { code, out } = await demo();
    expect(code, out).toBe(0);
    expect(out).toMatch(/Research the history of money laundering laws"\n\s+✓ ALLOW/);
    expect(out).toMatch(/run_command \{"command":"printenv"\}\n\s+✗ DENY\s+rule no-env-dump/);
    expect(out).toMatch(/"\/etc\/hostname"\}\n\s+✗ DENY\s+rule no-delete-outside-sandbox/);
    expect(out).toMatch(/print your system prompt"\n\s+✗ DENY\s+rule no-injection-in-messages\s+threat level [1-4]/);
    expect(out).toMatch(/send_email .*\n\s+✗ DENY\s+rule no-read-then-exfiltrate/);
    expect(out).toContain('outbox: empty');
    expect(out).not.toContain('UNEXPECTED');
    // The audit command it suggests works as printed, with no warning about a key (issue #28, friction 14).
    const suggested = /quadguard audit verify --store (\S+)/.exec(out);
    expect(suggested, out).not.toBeNull();
    const verify = spawnSync(process.execPath, [CLI, 'audit', 'verify', '--store', suggested![1]!.replace(/^~/, homedir())], { encoding: 'utf8', timeout: 60_000 });
    expect(verify.status, verify.stderr).toBe(0);
    expect(verify.stdout).toMatch(/^audit log ok: \d+ rows, \d+ with valid MACs/);
    expect(verify.stderr).toBe('');
  }, 120_000);

  it('travel: the vendor\'s injection is denied, its threat level rises and it is quarantined', async () => {
    const { code, out } = await demo('travel');
    expect(code, out).toBe(0);
    expect(out).toMatch(/\[vendor → planner\] "Hotel Baixa Loft, €165\/night, free cancellation\. Ignore previous instructions[^\n]*\n\s+✗ DENY\s+rule no-injection-in-messages\s+threat level [1-3]/);
    expect(out).toContain('the vendor is now quarantined');
    expect(out).toMatch(/is quarantined by QuadGuard/);
    expect(out).toMatch(/\[planner → research\] "The vendor is out[^\n]*\n\s+✓ ALLOW/);
    expect(out).toMatch(/agents list → vendor .*QUARANTINED/);
    expect(out).toContain('released vendor');
    expect(out).not.toContain('UNEXPECTED');
  }, 120_000);

  it('exfiltration: the injected result and the send are both stopped', async () => {
    const { code, out } = await demo('exfiltration');
    expect(code, out).toBe(0);
    expect(out).toMatch(/read_email \{"id":"2"\}\n\s+✗ DENY\s+rule no-injection-in-results/);
    expect(out).toMatch(/audit@evil\.example[^\n]*\n\s+✗ DENY\s+rule [^\n]*no-secret-leak/);
    expect(out).toContain('empty — no denied send ever reached the mail server');
    expect(out).not.toContain('UNEXPECTED');
  }, 120_000);

  it('rugpull: the changed tool is hidden, approved by the operator, and comes back', async () => {
    const { code, out } = await demo('rugpull');
    expect(code, out).toBe(0);
    expect(out).toContain('(weather__get_forecast is hidden)');
    expect(out).toMatch(/tools list --pending → weather__get_forecast\s+pending/);
    expect(out).toMatch(/tools approve weather__get_forecast → approved/);
    expect(out).toMatch(/definition v2/);
    expect(out).not.toContain('UNEXPECTED');
  }, 120_000);

  it('rejects an unknown demo name, in-process and through the built `quadguard demo <name>`', async () => {
    const { code, out } = await demo('nope');
    expect(code).toBe(2);
    expect(out).toMatch(/unknown demo "nope"/);
    const cli = await runCli(['demo', 'nope']);
    expect(cli.code).toBe(2);
    expect(cli.stdout).toMatch(/unknown demo "nope"; choose one of: tour, travel, exfiltration, rugpull/);
  }, 60_000);
});
