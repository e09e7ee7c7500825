import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ServerConfig } from '../config/schema.js';
import { errorMessage } from '../core/errors.js';
import { pathArguments } from '../detectors/path-args.js';
import { lexicalPath } from '../detectors/posix-path.js';
import { rootDirectories, type DeclaredRoot } from './client-roots.js';
import type { ForwardExtra, ProxyCore, SessionContext } from './context.js';

/**
 * Directories a stdio server may resolve a relative path against: its working directory (`cwd`, relative to the
 * proxy's own, or the proxy's own when unset), then every argument it was started with that names an existing
 * directory (`server-filesystem /data/a /data/b`), then the roots its client gave it (`clientDirs`, see
 * `ClientRoots`: server-filesystem resolves a relative path against those, other servers may use their cwd, and
 * the proxy cannot see which, so every one is a candidate and the path check wants all of them inside). Remote
 * servers: none (their file system is not ours), so a relative path stays undecided there.
 */
export function serverRoots(server: ServerConfig | undefined, clientDirs: readonly string[] = []): string[] | undefined {
  if (server === undefined || server.command === undefined) return undefined;
  // A server's start arguments do not change while it runs: stat them once per config, not once per call.
  let roots = rootsByServer.get(server);
  if (roots === undefined) {
    roots = rootsOf(server);
    rootsByServer.set(server, roots);
  }
  const more = clientDirs.filter((d) => !roots.includes(d));
  return more.length === 0 ? roots : [...roots, ...more];
}

const rootsByServer = new WeakMap<ServerConfig, string[]>();

function rootsOf(server: ServerConfig): string[] {
  const roots = [serverCwd(server)];
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

/** The working directory a stdio server runs in (its `cwd`, relative to the proxy's, else the proxy's). */
export function serverCwd(server: ServerConfig | undefined): string {
  return resolve(server?.cwd ?? '.');
}

/** The directories of a roots/list answer as `server` reads them (relative roots against its cwd). */
export function answeredDirs(core: ProxyCore, server: string, result: unknown): string[] {
  const roots = (result as { roots?: unknown } | undefined)?.roots;
  if (!Array.isArray(roots)) return [];
  const declared = roots.filter((r): r is DeclaredRoot => typeof r === 'object' && r !== null && typeof (r as DeclaredRoot).uri === 'string');
  return rootDirectories(declared, serverCwd(core.config.servers[server]));
}

/**
 * An upstream client's roots may have changed: tell the servers (`which`), so they ask again. On
 * roots/list_changed (`all`) the proxy also asks the client for its new roots, so until each server has fetched
 * them both the old and the new ones are candidates for relative paths. When a client connects (`unanswered`)
 * only servers that never got roots are told; they have no old client roots to confuse (what they use meanwhile,
 * their cwd and start directories, is a candidate anyway). A client without the roots capability has none to give.
 */
export async function clientRootsChanged(core: ProxyCore, upstream: Server, session: SessionContext, which: 'all' | 'unanswered'): Promise<void> {
  if (upstream.getClientCapabilities()?.roots === undefined) return;
  core.clientRoots.canAnswer(session.id, true);
  const keys = which === 'all' ? [...core.pool.servers.keys()] : core.clientRoots.unanswered();
  if (keys.length === 0) return;
  const learn =
    which === 'all'
      ? upstream
          .listRoots(undefined, { timeout: 10_000 })
          .then((answer) => keys.forEach((key) => core.clientRoots.announced(key, session.id, answeredDirs(core, key, answer))))
          .catch((err: unknown) => core.logger.debug({ err: errorMessage(err), session: session.id }, 'roots/list to the client failed'))
      : undefined;
  await Promise.all([learn, ...keys.map((k) => core.pool.servers.get(k)?.rootsChanged())]);
}

/**
 * Before a session's first tool call to a server that asked for roots and never got any (over HTTP the server's
 * first request can find no stream open to the client yet): ask the client for its roots on this call's own
 * stream, make them candidates for the server, and tell the server they changed, so it asks again while this call
 * is in flight (its request then goes back on the same stream). Once per session and server, and only for a client
 * that declared the roots capability at initialize; one that does not answer changes nothing.
 */
export async function rootsBeforeFirstCall(core: ProxyCore, server: string, session: SessionContext, extra: ForwardExtra): Promise<void> {
  if (!core.clientRoots.canAnswer(session.id) || !core.clientRoots.unanswered().includes(server) || !core.clientRoots.firstTry(server, session.id)) return;
  try {
    const answer = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema, { timeout: 5_000 });
    core.clientRoots.announced(server, session.id, answeredDirs(core, server, answer));
  } catch (err) {
    core.logger.debug({ err: errorMessage(err), session: session.id, server }, 'roots/list to the client failed');
    return;
  }
  void core.pool.servers.get(server)?.rootsChanged();
}

/**
 * For a denied call: which of its path arguments are relative and the directories they may resolve against, when
 * there are several (the path check wanted every resolution inside). Undefined when that is not the case.
 */
export function relativePathNote(server: string, args: unknown, pathKeys: readonly string[], roots: readonly string[] | undefined): string | undefined {
  if (roots === undefined || roots.length < 2) return undefined;
  const relative = pathArguments(args, pathKeys)
    .map((f) => f.text)
    .filter((t) => lexicalPath(t)?.root === '.');
  if (relative.length === 0) return undefined;
  const shown = [...new Set(relative)].slice(0, 3).map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 60)}…` : t));
  return `Relative path${relative.length > 1 ? 's' : ''} ${shown.join(', ')} may resolve against any of ${roots.length} directories of server "${server}" (its working directory, its start directories, the roots its client gave it): ${roots.join(', ')}. QuadGuard checks every one; an absolute path names one place.`;
}
