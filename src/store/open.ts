import { silentLogger, type Logger } from '../core/log.js';
import { openStore, type StoreOptions } from './db.js';
import type { GuardStore } from './engine.js';
import { isPostgresUrl } from './location.js';

export { isPostgresUrl } from './location.js';


/**
 * Opens the store a config or `--store` names: a `postgres://` URL is the PostgreSQL engine (shared by
 * replicas), anything else the SQLite file (created with its folder unless `mustExist`). Both run their
 * migrations on open.
 *
 * @example
 * const store = await openGuardStore('postgres://quadguard@db:5432/quadguard', log);
 * await store.audit.append(auditEntryFor(interaction, decision));
 * await store.close();
 */
export async function openGuardStore(
  location: string,
  logger: Logger = silentLogger(),
  options: StoreOptions & { auditHeadFile?: string; auditKeyEnv?: string } = {},
): Promise<GuardStore> {
  if (isPostgresUrl(location)) {
    const { openPgStore } = await import('./pg/index.js');
    return openPgStore(location, logger, {
      ...(options.mustExist ? { mustExist: true } : {}),
      ...(options.auditKeyFile !== undefined ? { auditKeyFile: options.auditKeyFile } : {}),
      ...(options.auditKeyEnv !== undefined ? { auditKeyEnv: options.auditKeyEnv } : {}),
      ...(options.auditHeadFile !== undefined ? { auditHeadFile: options.auditHeadFile } : {}),
      ...(options.auditJournal !== undefined ? { auditJournal: options.auditJournal } : {}),
    });
  }
  return openStore(location, logger, options);
}
