import { describe, expect, it, vi } from 'vitest';
import { SHELL_PARSE_CHARS } from '../../src/detectors/shell/index.js';
import { call, compile } from './helpers.js';

/** The length of every text the command reader is handed: the bound is on what is parsed, not on a clock. */
const parsed = vi.hoisted(() => [] as number[]);
vi.mock('../../src/detectors/shell/commands.js', async (load) => {
  const real = await load<typeof import('../../src/detectors/shell/commands.js')>();
  return { ...real, invocations: (text: string) => (parsed.push(text.length), real.invocations(text)) };
});

/** The parse cap of shell_risk: a huge argument costs a bounded parse, and what lies past the cap is never `false`. */
const d = compile({ type: 'shell_risk', sandbox: ['/tmp'], categories: ['destructive_delete', 'permission_change', 'remote_exec', 'env_dump', 'disk_destroy'] });
const line = 'cd /work && ls -la build && echo "step done" | tee -a log.txt; grep -n TODO src/*.ts > todo.txt\n';
const filler = (chars: number) => line.repeat(Math.ceil(chars / line.length));

describe('shell_risk on long fields', () => {
  it('parses only the first 16 KiB of a 250 KB benign script, cut at a separator, and finds nothing', () => {
    parsed.length = 0;
    const r = d(call({ command: filler(250_000) }));
    expect(r.value).toBe('false');
    // Unbounded parsing of the whole text took 0.5–2 s on this machine.
    expect(parsed.length).toBeGreaterThan(0);
    expect(Math.max(...parsed)).toBeLessThanOrEqual(SHELL_PARSE_CHARS);
    expect(Math.max(...parsed)).toBeGreaterThan(SHELL_PARSE_CHARS / 2);
  });

  it('still finds a destructive command inside the parsed start', () => {
    expect(d(call({ command: `rm -rf /etc\n${filler(250_000)}` })).value).toBe('true');
  });

  it('reports unknown, not false, for a risky command word past the cap', () => {
    const r = d(call({ command: `${filler(SHELL_PARSE_CHARS + 1000)}rm -rf /\n` }));
    expect(r.value).toBe('unknown');
    expect(r.evidence).toMatch(/longer than 16 KiB/);
  });

  it('does not cut a command in two at the cap (no finding made up from a prefix)', () => {
    // A long benign rm inside the sandbox straddles the cap; cutting mid-path would leave "rm -rf /".
    const pad = filler(SHELL_PARSE_CHARS).slice(0, SHELL_PARSE_CHARS - 8);
    const r = d(call({ command: `${pad}rm -rf /tmp/build-cache-${'x'.repeat(40)}\n` }));
    expect(r.value).not.toBe('true');
  });

  it('keeps long prose with no command words false', () => {
    const prose = 'The quarterly report shows steady growth in all regions; the team will review the backlog on Friday. '.repeat(2600);
    expect(d(call({ content: prose })).value).toBe('false');
  });
});
