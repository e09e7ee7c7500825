import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';

/** Where the kernel starts handing out ports to whoever listens on port 0 (Linux; elsewhere the IANA range). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low)) return low;
  } catch {
    // Not Linux.
  }
  return 49152;
}

/** Listens on loopback `port` (0: any) and closes again: the port it got; rejects when it cannot listen there. */
function listenOn(port: number): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(port, '127.0.0.1', () => {
      const got = (s.address() as AddressInfo).port;
      s.close(() => done(got));
    });
  });
}

/**
 * A loopback port free at the time of asking, for a child process to listen on, chosen below the kernel's ephemeral
 * range: a port found free is only passed to the child, which listens on it some hundreds of ms later, and a port of
 * that range can be handed meanwhile to anything that listens on port 0 (another proxy's live view, a test's own
 * server). The overhead bench lost a run to that: its proxy found its port taken and exited, and the bench talked to
 * whatever had taken it.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  const from = 10_000;
  if (low - from >= 1_000) {
    for (let i = 0; i < 64; i++) {
      try {
        return await listenOn(from + Math.floor(Math.random() * (low - from)));
      } catch {
        // Taken: try another.
      }
    }
  }
  // No room below the range, or nothing free there: one the kernel picks.
  return listenOn(0);
}
