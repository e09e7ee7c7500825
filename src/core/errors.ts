/**
 * Errors with stable snake_case codes, grouped by phase (config_*, policy_*, detector_*, downstream_*, store_*,
 * llm_*, eval_*), so tests assert codes rather than prose and the CLI prints `code: message`.
 */
export interface ErrorLocation {
  /** File the error was found in, when there is one. */
  file?: string;
  /** Path inside the document, e.g. `rules[2].formula`. */
  path?: string;
  /** 1-based line and column, when known. */
  line?: number;
  column?: number;
}

/** Base class of every error QuadGuard raises on purpose. */
export class QuadGuardError extends Error {
  readonly code: string;
  readonly location: ErrorLocation | undefined;

  constructor(code: string, message: string, options: { cause?: unknown; location?: ErrorLocation } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.location = options.location;
  }

  /** `file:line:col: code: message`, the form the CLI prints. */
  format(): string {
    const loc = this.location;
    const where = loc?.file
      ? `${loc.file}${loc.line !== undefined ? `:${loc.line}${loc.column !== undefined ? `:${loc.column}` : ''}` : ''}: `
      : '';
    return `${where}${this.code}: ${this.message}`;
  }
}

/** The configuration file is missing, unreadable or invalid. */
export class ConfigError extends QuadGuardError {}
/** A policy book does not parse, validate or verify. */
export class PolicyError extends QuadGuardError {}
/** A detector's options are invalid (raised when a book is compiled, never per interaction). */
export class DetectorConfigError extends QuadGuardError {}
/** A downstream MCP server failed, timed out or answered something malformed. */
export class DownstreamError extends QuadGuardError {}
/** The SQLite state or audit store failed or was found tampered with. */
export class StoreError extends QuadGuardError {}
/** A model endpoint failed, timed out or answered something that does not fit the expected schema. */
export class LlmError extends QuadGuardError {}
/** An evaluation case file is malformed. */
export class EvalRunError extends QuadGuardError {}

/** Message of any thrown value, without a stack. */
export function errorMessage(err: unknown): string {
  if (err instanceof QuadGuardError) return err.format();
  if (err instanceof Error) return err.message;
  return String(err);
}
