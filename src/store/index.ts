/** The SQLite store: hash-chained audit log, guard state (Γ, τ, quarantine) and tool pins. */
export { openStore, type Store, type StoreOptions } from './db.js';
export { AuditLog, GENESIS_HASH, rowHash, type VerifyResult } from './audit.js';
export { exportNdjson } from './audit-export.js';
export * from './audit-schema.js';
export { StateStore, ThreatStateSchema, type ThreatState } from './state.js';
export { PinStore, PinSchema, PinStatusSchema, type Pin, type PinStatus, type ObserveResult } from './pins.js';
export { toolDefinitionHash, toolDefinitionJson, type ToolDefinition } from './tool-hash.js';
export { canonicalJson, sha256Hex } from '../core/canonical.js';
export { findSecrets, maskSecrets, maskPrefix, type SecretSpan } from './redact.js';
export { resolveStorePath, DEFAULT_STORE_PATH } from './store-path.js';
export { SqliteFlowStore, type FlowStore, type FlowMatch } from './flow.js';
export { openGuardStore, isPostgresUrl } from './open.js';
export type { GuardStore, AuditApi, StateApi, PinApi, ApprovalApi } from './engine.js';
export { MIGRATIONS, type Migration } from './migrations.js';
