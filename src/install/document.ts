import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { classifyEntry, type EntryKind } from './entry.js';
import { InstallError } from './errors.js';
import { member, parseJson, type JsonMember, type JsonNode } from './jsonc.js';
import type { ClientSpec, ConfigLocation } from './clients.js';

/**
 * A host's config file, read and checked but not yet changed: its text, the span tree for surgical edits, and its
 * servers in file order.
 */
export interface ClientDocument {
  spec: ClientSpec;
  file: string;
  /** False when the file does not exist yet (text is then the skeleton install would create). */
  exists: boolean;
  text: string;
  /** The servers object member (`mcpServers` / `servers`), absent if the file has none. */
  servers: JsonNode | undefined;
  /** Server entries in file order (last one wins for duplicate names, as in JSON.parse). */
  entries: JsonMember[];
}

/** One line of `--server`-less output: a server and what install would do with it. */
export interface ServerListing {
  name: string;
  kind: EntryKind['kind'];
  note?: string;
}

/** The file a missing project config is created with. */
export function skeleton(spec: ClientSpec): string {
  return `${JSON.stringify({ [spec.serversKey]: {} }, null, 2)}\n`;
}

/**
 * Reads and validates the client's file. Bad JSON → `install_parse_error` at file:line:column; valid JSON of the
 * wrong shape → `install_invalid` naming the field; missing and not creatable → `install_client_missing`.
 */
export function openDocument(spec: ClientSpec, loc: ConfigLocation): ClientDocument {
  if (!existsSync(loc.file)) {
    if (!loc.creatable) {
      throw new InstallError('install_client_missing', `${spec.title} config ${loc.file} does not exist and its folder is missing; pass --config-file or create it`, { location: { file: loc.file } });
    }
    const text = skeleton(spec);
    return { spec, file: loc.file, exists: false, text, servers: undefined, entries: [] };
  }
  let text: string;
  try {
    text = readFileSync(loc.file, 'utf8');
  } catch (err) {
    throw new InstallError('install_io', `cannot read ${loc.file}: ${(err as Error).message}`, { cause: err, location: { file: loc.file } });
  }
  if (text.trim().length === 0) text = skeleton(spec);
  const parsed = parseJson(text, { file: loc.file, jsonc: spec.jsonc });
  if (parsed.root.kind !== 'object') {
    throw new InstallError('install_invalid', `${loc.file}: the top level must be a JSON object with "${spec.serversKey}"`, { location: { file: loc.file } });
  }
  const shape = spec.fileSchema.safeParse(parsed.value);
  if (!shape.success) {
    throw new InstallError('install_invalid', `${loc.file} does not look like a ${spec.title} MCP config:\n${z.prettifyError(shape.error)}`, { location: { file: loc.file } });
  }
  const servers = member(parsed.root, spec.serversKey)?.node;
  const byName = new Map<string, JsonMember>();
  if (servers?.kind === 'object') for (const m of servers.members) byName.set(m.key, m);
  return { spec, file: loc.file, exists: true, text, servers, entries: [...byName.values()] };
}

/** The servers of a document with their classification, for listings. */
export function listServers(doc: ClientDocument, cliPath: string | undefined): ServerListing[] {
  return doc.entries.map((m) => {
    const k = classifyEntry(m.node.value, doc.spec, cliPath);
    return { name: m.key, kind: k.kind, ...('reason' in k ? { note: k.reason } : {}) };
  });
}
