import { QuadGuardError } from '../core/errors.js';

/**
 * Registration failed: `install_usage` (bad flags or unknown server; the CLI exits 2), `install_parse_error`
 * (the client's file is not valid JSON/JSONC; location names file:line:column), `install_invalid` (valid JSON of
 * the wrong shape), `install_client_missing` (the client's folder does not exist), `install_exists` (init would
 * overwrite), `install_io` (read or write failed). The client's file is never touched when one is thrown.
 */
export class InstallError extends QuadGuardError {}
