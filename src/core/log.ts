import pino from 'pino';

export type Logger = pino.Logger;
export type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Paths pino censors in every log line: tokens, auth headers and child environments never reach a log. */
const SECRET_PATHS = [
  'token',
  '*.token',
  'headers.authorization',
  '*.headers.authorization',
  'req.headers.authorization',
  'env',
  '*.env',
  'apiKey',
  '*.apiKey',
];

/**
 * The only place a root logger is made. It writes JSON lines to stderr (fd 2), because on stdio stdout carries
 * the MCP protocol. Modules take a logger and call `child({ mod })`.
 */
export function createRootLogger(level: LevelName = (process.env.QUADGUARD_LOG_LEVEL as LevelName) ?? 'info'): Logger {
  return pino({ level, base: { name: 'quadguard' }, redact: { paths: SECRET_PATHS }, onChild: uniqueBindings }, pino.destination(2));
}

/** A logger that drops everything, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent', onChild: uniqueBindings });
}

/**
 * Makes a child's bindings replace its parent's of the same name: a downstream logger made from the proxy's writes
 * `"mod":"downstream"` once. pino appends a child's bindings to its parent's as JSON text, so a key bound at two
 * levels (every module binds `mod`) appeared twice in one line, which JSON readers resolve each their own way.
 * pino calls this (its `onChild` hook, inherited by every descendant) after the child's bindings are set.
 */
export function uniqueBindings(child: Logger): void {
  const holder = child as unknown as Record<symbol, unknown>;
  const text = holder[pino.symbols.chindingsSym];
  if (typeof text !== 'string' || !text.startsWith(',')) return;
  // The bindings text is `,"k":v,...` of values pino already serialised (and redacted): re-reading it keeps each
  // key at its first place with its last value.
  const merged = JSON.parse(`{${text.slice(1)}}`) as Record<string, unknown>;
  const unique = JSON.stringify(merged).slice(1, -1);
  holder[pino.symbols.chindingsSym] = unique === '' ? '' : `,${unique}`;
}
