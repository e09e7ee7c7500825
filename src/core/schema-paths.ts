/**
 * Which argument names of a tool hold paths, read from its JSON Schema `inputSchema`: a property whose `format` is
 * a path or file URI (`uri`, `uri-reference`, `iri`, `path`, `file-path`), or whose title or description says it
 * names a file, folder or path ("Name of the file to delete"). Nested objects and arrays are followed (an array of
 * such items counts under its own name). A name a detector could not guess from the value (`{name: "victim.txt"}`)
 * is then checked as a path all the same.
 */
const PATH_FORMAT = /^(?:uri|uri-reference|iri|iri-reference|path|file-?path|file)$/i;
const PATH_WORDS = /\b(?:file|files|filename|file name|folder|folders|directory|directories|dir|path|paths|filepath)\b/i;
const MAX_DEPTH = 8;
const MAX_KEYS = 256;

export function schemaPathKeys(schema: unknown): string[] {
  const keys = new Set<string>();
  forEachSchemaProperty(schema, (name, _path, p) => {
    if (namesPath(p)) keys.add(name);
  });
  return [...keys].slice(0, MAX_KEYS);
}

/**
 * Calls `visit` for every property of a JSON Schema, at any depth (nested objects, array items, `anyOf`/`oneOf`/
 * `allOf`, up to 8 levels): its name, its dotted path below the root (list items take their list's path), its schema.
 */
export function forEachSchemaProperty(schema: unknown, visit: (name: string, path: string, property: Record<string, unknown>) => void): void {
  walk(schema, '', 0, visit);
}

function walk(schema: unknown, at: string, depth: number, visit: (name: string, path: string, property: Record<string, unknown>) => void): void {
  if (depth > MAX_DEPTH || schema === null || typeof schema !== 'object') return;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (props !== null && typeof props === 'object') {
    for (const [name, raw] of Object.entries(props as Record<string, unknown>)) {
      if (raw === null || typeof raw !== 'object') continue;
      const path = at === '' ? name : `${at}.${name}`;
      visit(name, path, raw as Record<string, unknown>);
      walk(raw, path, depth + 1, visit);
    }
  }
  if (s.items !== undefined) {
    walk(s.items, at, depth + 1, visit);
  }
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[k])) for (const sub of s[k] as unknown[]) walk(sub, at, depth + 1, visit);
  }
}

function namesPath(p: Record<string, unknown>): boolean {
  const item = p.items !== null && typeof p.items === 'object' ? (p.items as Record<string, unknown>) : undefined;
  const fmt = typeof p.format === 'string' ? p.format : typeof item?.format === 'string' ? item.format : undefined;
  if (fmt !== undefined && PATH_FORMAT.test(fmt)) return true;
  const text = [p.title, p.description].filter((t): t is string => typeof t === 'string').join(' ');
  return text.length > 0 && PATH_WORDS.test(text);
}
