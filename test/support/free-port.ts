import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Where the kernel hands out ports to whoever listens on port 0 (Linux; elsewhere the IANA range). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high)) return [low!, high!];
  } catch {
    // Not Linux.
  }
  return [49152, 65535];
}

/** Whether a loopback listener can take `port` now (closed again at once). */
function listenable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const s = createServer();
    s.once('error', () => done(false));
    s.listen(port, '127.0.0.1', () => s.close(() => done(true)));
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
  const [low] = ephemeralRange();
  const from = 10_000;
  if (low - from >= 1_000) {
    for (let i = 0; i < 64; i++) {
      const port = from + Math.floor(Math.random() * (low - from));
      if (await listenable(port)) return port;
    }
  }
  // No room below the range, or nothing free there: one the kernel picks.
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => done(port));
    });
  });
}
