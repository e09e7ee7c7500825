import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Downstream } from './downstream.js';
import type { DownstreamPool } from './pool.js';
import type { LiveUpstream, UpstreamRegistry } from './sessions.js';

/**
 * A server's state as a log message from QuadGuard itself (logger `quadguard`): down is an error naming the reason
 * and the config key to fix; back up is info. Clients otherwise only see its tools missing.
 */
function stateMessage(d: Downstream): { level: LoggingLevel; logger: string; data: string } {
  const note = d.stateNote();
  return note !== undefined
    ? { level: 'error', logger: 'quadguard', data: note }
    : { level: 'info', logger: 'quadguard', data: `server "${d.key}" is up again; its tools are listed.` };
}

/** Tells every initialised session that a server went down (a new reason) or came back. */
export function announceServerState(registry: UpstreamRegistry, d: Downstream): void {
  if (d.state === 'closed') return;
  for (const s of registry.all()) if (s.initialized) registry.logTo(s, stateMessage(d));
}

/** Tells a session that just initialised about every server that is down now. */
export function tellDownServers(registry: UpstreamRegistry, pool: DownstreamPool, s: LiveUpstream): void {
  for (const d of pool.servers.values()) if (d.stateNote() !== undefined) registry.logTo(s, stateMessage(d));
}
