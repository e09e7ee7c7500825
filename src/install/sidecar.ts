import { existsSync, readFileSync, rmSync } from 'node:fs';
import { z } from 'zod';
import { InstallError } from './errors.js';
import { writeAtomic } from './fs-safe.js';

/**
 * The sidecar `<config>.quadguard.json` remembers, per wrapped entry, the original entry's exact source text, so
 * `uninstall` restores it byte for byte. A sidecar (rather than a marker key inside the entry) is used for every
 * host: Claude Desktop and VS Code validate their entries, and an unknown key could make a host reject the server.
 */

export const SidecarRecordSchema = z.looseObject({
  /** The original entry's text exactly as it was in the file. */
  original_text: z.string(),
  /** The original entry, parsed (for reading and as a fallback). */
  original: z.unknown(),
  /** The entry as install wrote it; a mismatch at uninstall means someone edited it since. */
  wrapped: z.unknown(),
  installed_at: z.string(),
});
export type SidecarRecord = z.infer<typeof SidecarRecordSchema>;

export const SidecarSchema = z.looseObject({
  quadguard_sidecar: z.literal(1),
  client: z.string(),
  config_file: z.string(),
  entries: z.record(z.string(), SidecarRecordSchema),
});
export type Sidecar = z.infer<typeof SidecarSchema>;

/** The sidecar path of a client config file. */
export function sidecarPath(configFile: string): string {
  return `${configFile}.quadguard.json`;
}

/** Reads the sidecar, or an empty one when there is none. A corrupt sidecar is an error, never ignored. */
export function readSidecar(configFile: string, client: string): Sidecar {
  const path = sidecarPath(configFile);
  if (!existsSync(path)) return { quadguard_sidecar: 1, client, config_file: configFile, entries: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new InstallError('install_parse_error', `QuadGuard sidecar ${path} is not valid JSON (${(err as Error).message}); restore it from the client config's .bak- file or delete it`, { location: { file: path } });
  }
  const r = SidecarSchema.safeParse(raw);
  if (!r.success) throw new InstallError('install_invalid', `QuadGuard sidecar ${path} has an unexpected shape:\n${z.prettifyError(r.error)}`, { location: { file: path } });
  return r.data;
}

/** Writes the sidecar, or removes it when it records nothing. Returns the path written, if any. */
export function writeSidecar(configFile: string, sidecar: Sidecar): string | undefined {
  const path = sidecarPath(configFile);
  if (Object.keys(sidecar.entries).length === 0) {
    rmSync(path, { force: true });
    return undefined;
  }
  writeAtomic(path, `${JSON.stringify(sidecar, null, 2)}\n`);
  return path;
}
