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
  return pino({ level, base: { name: 'quadguard' }, redact: { paths: SECRET_PATHS } }, pino.destination(2));
}

/** A logger that drops everything, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
