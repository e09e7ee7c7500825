import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { openStore } from '../store/db.js';
import { isPostgresUrl } from '../store/location.js';
import { MIGRATIONS } from '../store/migrations.js';
import { openDatabase, pragma } from '../store/sqlite.js';
import { resolveStorePath } from '../store/store-path.js';
import { storeOptions, type StoreCliOptions } from './store-options.js';

/**
 * `quadguard migrate [--store FILE|URL]`: creates the store or brings its schema up to this version (both
 * engines, from the one list in src/store/migrations.ts), and prints the versions. The proxy migrates on start
 * too; this is for an operator who prepares a PostgreSQL database before starting replicas, or upgrades it once.
 */
export function registerMigrateCommand(program: Command): void {
  storeOptions(program.command('migrate').description('create the store or upgrade its schema (SQLite file or postgres:// URL)')).action(
    async (opts: StoreCliOptions) => {
      const location = resolveStorePath(opts);
      let from: number;
      let where: string;
      if (isPostgresUrl(location)) {
        const { openPgStore } = await import('../store/pg/index.js');
        const store = await openPgStore(location, undefined, { migrate: false });
        try {
          ({ from } = await store.db.migrate({ mustExist: false }));
          where = store.location;
        } finally {
          await store.close();
        }
      } else {
        from = existsSync(location) ? sqliteVersion(location) : 0;
        await openStore(location).close();
        where = location;
      }
      const to = MIGRATIONS.length;
      const steps = MIGRATIONS.slice(from).map((m, i) => `  ${from + i + 1}: ${m.name}\n`).join('');
      process.stdout.write(from === to ? `store ${where} is up to date (schema ${to})\n` : `store ${where}: schema ${from} → ${to}\n${steps}`);
    },
  );
}

function sqliteVersion(file: string): number {
  const db = openDatabase(file, { readonly: true, fileMustExist: true });
  try {
    return pragma(db, 'user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
}
