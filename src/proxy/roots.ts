import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ServerConfig } from '../config/schema.js';

/**
 * Directories a stdio server may resolve a relative path against: its working directory (`cwd`, relative to the
 * proxy's own, or the proxy's own when unset), then every argument it was started with that names an existing
 * directory (`server-filesystem /data/a /data/b`). Remote servers: none (their file system is not ours), so a
 * relative path stays undecided there.
 */
export function serverRoots(server: ServerConfig | undefined): string[] | undefined {
  if (server === undefined || server.command === undefined) return undefined;
  // A server's start arguments do not change while it runs: stat them once per config, not once per call.
  let roots = rootsByServer.get(server);
  if (roots === undefined) {
    roots = rootsOf(server);
    rootsByServer.set(server, roots);
  }
  return roots;
}

const rootsByServer = new WeakMap<ServerConfig, string[]>();

function rootsOf(server: ServerConfig): string[] {
  const roots = [resolve(server.cwd ?? '.')];
  for (const a of server.args) {
    if (a.startsWith('-') || a.length === 0) continue;
    const dir = isAbsolute(a) ? a : resolve(roots[0] as string, a);
    try {
      if (statSync(dir).isDirectory() && !roots.includes(dir)) roots.push(dir);
    } catch {
      // not a directory: an argument like any other
    }
  }
  return roots;
}
