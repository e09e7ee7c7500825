import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A root as a client declares it (`roots/list`): a `file://` URI (or, loosely, a plain path) and a name. */
export interface DeclaredRoot {
  uri: string;
  name?: string;
}

/**
 * The local directories a client's roots name, read the way `@modelcontextprotocol/server-filesystem` reads them
 * (`roots-utils.js`): a `file://` URI decoded, or a plain path; `~` expanded; relative to the server's working
 * directory `cwd`. A root that is not a local file URI (another host, another scheme, a bad encoding) names no
 * directory here and is left out, as that server leaves it out. Whether the directory exists is not asked: the
 * path check resolves links itself, and a root that does not exist only adds a candidate (never removes one).
 */
export function rootDirectories(roots: readonly DeclaredRoot[], cwd: string): string[] {
  const out: string[] = [];
  for (const r of roots) {
    let raw: string;
    try {
      if (/^file:/i.test(r.uri)) raw = fileURLToPath(r.uri);
      else if (/^[a-z][a-z0-9+.-]*:/i.test(r.uri)) continue;
      else raw = r.uri;
    } catch {
      continue;
    }
    if (raw.length === 0 || raw.includes('\u0000')) continue;
    const expanded = raw === '~' || raw.startsWith('~/') ? join(homedir(), raw.slice(1)) : raw;
    const dir = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
    if (!out.includes(dir)) out.push(dir);
  }
  return out;
}

/** How long a server's previous roots stay candidates after new ones are carried to it (it applies them later). */
export const ROOTS_SETTLE_MS = 2_000;

interface ServerRoots {
  /** The directories of the last non-empty roots/list answer carried to the server (what it uses now). */
  told: string[];
  /** The session whose answer that was. */
  toldBy: string | undefined;
  /** The roots before the last answer, still candidates until `until` (the server may not have applied it yet). */
  previous: { dirs: string[]; until: number } | undefined;
  /** Roots a client announced (connect, roots/list_changed) that the server has not fetched yet. */
  pending: Map<string, string[]>;
}

/**
 * What each downstream server has been told its client's roots are, so a relative path in a tool call is resolved
 * against the directories the server will resolve it against. The proxy answers a server's `roots/list` from one
 * upstream client; the server keeps one list (server-filesystem replaces its allowed directories with it) whoever
 * calls it afterwards, so the roots are kept per server, with the session that gave them.
 *
 * While a change is under way the old and the new roots are both candidates: roots a client announced that the
 * server has not fetched yet (`announced`), and for {@link ROOTS_SETTLE_MS} after an answer the roots it replaced.
 */
export class ClientRoots {
  private readonly servers = new Map<string, ServerRoots>();
  private readonly tried = new Set<string>();

  constructor(private readonly now: () => number = Date.now) {}

  private entry(server: string): ServerRoots {
    let e = this.servers.get(server);
    if (!e) {
      e = { told: [], toldBy: undefined, previous: undefined, pending: new Map() };
      this.servers.set(server, e);
    }
    return e;
  }

  /** The server asked for its client's roots (whether or not anyone could answer): it uses roots. */
  asked(server: string): void {
    this.entry(server);
  }

  /** Sessions whose client declared the roots capability at initialize. */
  private readonly capable = new Set<string>();

  /** The session's client declared the roots capability (it can answer roots/list). */
  canAnswer(session: string, yes?: boolean): boolean {
    if (yes === true) this.capable.add(session);
    return this.capable.has(session);
  }

  /** True the first time it is called for this server and session (see `rootsBeforeFirstCall`). */
  firstTry(server: string, session: string): boolean {
    const key = `${server}\u0000${session}`;
    if (this.tried.has(key)) return false;
    this.tried.add(key);
    return true;
  }

  /** Servers that asked for roots at least once. */
  askers(): string[] {
    return [...this.servers.keys()];
  }

  /** Servers that asked for roots and were never given any (their first request found no client, say). */
  unanswered(): string[] {
    return [...this.servers.entries()].filter(([, e]) => e.told.length === 0).map(([k]) => k);
  }

  /**
   * A roots/list answer from `session` was carried to `server`. An answer naming no local directory leaves the
   * server's roots as they were (server-filesystem keeps its directories then).
   */
  delivered(server: string, session: string, dirs: string[]): void {
    const e = this.entry(server);
    e.pending.clear();
    if (dirs.length === 0) return;
    if (e.told.length > 0 && !sameSet(e.told, dirs)) e.previous = { dirs: e.told, until: this.now() + ROOTS_SETTLE_MS };
    e.told = dirs;
    e.toldBy = session;
  }

  /** `session`'s roots are now `dirs` (it connected, or said roots/list_changed): `server`, which uses roots, may fetch them. */
  announced(server: string, session: string, dirs: string[]): void {
    const e = this.servers.get(server);
    if (e && dirs.length > 0) e.pending.set(session, dirs);
  }

  /** The client-given directories a relative path on `server` may resolve against now (empty: none known). */
  candidates(server: string): string[] {
    const e = this.servers.get(server);
    if (!e) return [];
    const out = [...e.told];
    if (e.previous && e.previous.until > this.now()) out.push(...e.previous.dirs);
    for (const dirs of e.pending.values()) out.push(...dirs);
    return [...new Set(out)];
  }
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
