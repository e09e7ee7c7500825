import { isAbsolute, resolve } from 'node:path';

/** True for a `postgres://` or `postgresql://` store location (anything else is a SQLite file). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparsable URL)';
  }
}

/**
 * The store a config names: a SQLite path made absolute against `base`, or a `postgres://` URL with the password
 * of `store_password.env` put in (the URL is never logged with it: see redactUrl).
 */
export function resolveStoreValue(
  store: string,
  password: { env: string } | undefined,
  base: string,
  env: NodeJS.ProcessEnv,
): { location: string; problem?: undefined } | { location?: undefined; problem: string } {
  if (!isPostgresUrl(store)) {
    if (password) return { problem: '  store_password: only a postgres:// store takes a password' };
    return { location: isAbsolute(store) ? store : resolve(base, store) };
  }
  let url: URL;
  try {
    url = new URL(store);
  } catch {
    return { problem: '  store: not a valid postgres:// URL (expected postgres://user@host:port/database)' };
  }
  if (url.pathname.length <= 1) return { problem: '  store: the postgres:// URL names no database (expected postgres://user@host:port/database)' };
  if (password) {
    const value = env[password.env];
    if (value === undefined || value.length === 0) return { problem: `  store_password.env: environment variable ${password.env} is not set or empty` };
    if (url.password) return { problem: '  store_password: the store URL already carries a password; give it in one place' };
    url.password = encodeURIComponent(value);
  }
  return { location: url.toString() };
}
