import { PolicyError, type ErrorLocation } from '../core/errors.js';

/**
 * Diagnostics of the policy phases (load → parse → check → evaluate), OPA-style: each has a stable `policy_*`
 * code, a severity and a location, and prints as `file:line:col: code: message`.
 */
/** Every code the policy layer raises, grouped `policy_*` as in OPA's per-phase codes. */
export type PolicyCode =
  | 'policy_read_error'
  | 'policy_yaml_error'
  | 'policy_schema_error'
  | 'policy_parse_error'
  | 'policy_duplicate_predicate'
  | 'policy_duplicate_rule'
  | 'policy_undefined_predicate'
  | 'policy_detector_error'
  | 'policy_glob_error'
  | 'policy_rule_always_violated'
  | 'policy_rule_never_violated'
  | 'policy_rule_fires_on_baseline'
  | 'policy_unused_predicate'
  | 'policy_semantic_predicate'
  | 'policy_scope_mismatch'
  | 'policy_too_many_errors'
  | 'policy_unsigned'
  | 'policy_signature_invalid'
  | 'policy_key_error';

/** One error or lint warning found while loading or checking a book. */
export interface PolicyDiagnostic {
  code: PolicyCode;
  severity: 'error' | 'warning';
  message: string;
  location?: ErrorLocation;
}

/** How many errors are collected before the checker stops adding more (OPA's CompileErrorLimitDefault). */
export const ERROR_LIMIT = 10;

/** `file:line:col: code: message` for a diagnostic (warnings add `warning:` after the location). */
export function formatDiagnostic(d: PolicyDiagnostic): string {
  const err = new PolicyError(d.code, d.message, d.location ? { location: d.location } : {});
  const s = err.format();
  if (d.severity === 'error') return s;
  return s.replace(`${d.code}:`, `warning: ${d.code}:`);
}

/**
 * Thrown when a book does not load or compile. Carries every error found (capped at `ERROR_LIMIT`); its own
 * code is the first error's code, its message all of them, one per line.
 */
export class PolicyBookError extends PolicyError {
  readonly errors: PolicyDiagnostic[];
  readonly warnings: PolicyDiagnostic[];

  constructor(errors: PolicyDiagnostic[], warnings: PolicyDiagnostic[] = []) {
    const first = errors[0];
    super(first?.code ?? 'policy_schema_error', errors.map(formatDiagnostic).join('\n'), {
      ...(first?.location ? { location: first.location } : {}),
    });
    this.errors = errors;
    this.warnings = warnings;
  }

  /** Every error as `file:line:col: code: message`. */
  override format(): string {
    return this.message;
  }
}

/** Collects diagnostics, capping errors at `ERROR_LIMIT` (one extra `policy_too_many_errors` marks the cut). */
export class DiagnosticSink {
  readonly errors: PolicyDiagnostic[] = [];
  readonly warnings: PolicyDiagnostic[] = [];
  private dropped = 0;

  constructor(private readonly file?: string) {}

  error(code: PolicyCode, message: string, location?: ErrorLocation): void {
    if (this.errors.length >= ERROR_LIMIT) {
      this.dropped++;
      return;
    }
    this.errors.push(this.make(code, 'error', message, location));
  }

  warn(code: PolicyCode, message: string, location?: ErrorLocation): void {
    this.warnings.push(this.make(code, 'warning', message, location));
  }

  get full(): boolean {
    return this.errors.length >= ERROR_LIMIT;
  }

  /** Throws `PolicyBookError` when any error was collected. */
  throwIfErrors(): void {
    if (this.errors.length === 0) return;
    const errs = [...this.errors];
    if (this.dropped > 0) {
      errs.push(this.make('policy_too_many_errors', 'error', `${this.dropped} more error(s) not shown`));
    }
    throw new PolicyBookError(errs, this.warnings);
  }

  private make(code: PolicyCode, severity: 'error' | 'warning', message: string, location?: ErrorLocation) {
    const loc = this.file || location ? { ...(this.file ? { file: this.file } : {}), ...location } : undefined;
    return loc ? { code, severity, message, location: loc } : { code, severity, message };
  }
}
