import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layering of src/ (docs/architecture.md): each folder has a rank and may import only folders of a lower
 * rank (type imports included); folders of the same rank do not import each other. No file-level import cycle.
 */
const LAYERS: Record<string, number> = {
  core: 0,
  detectors: 1,
  policy: 2,
  llm: 3,
  store: 3,
  retrieval: 4,
  guard: 5,
  config: 6,
  proxy: 7,
  eval: 7,
  replay: 7,
  install: 7,
  ui: 7,
  a2a: 8, // the A2A proxy: uses the MCP proxy's HTTP authentication, denial text and recorder
  ops: 8,
  cli: 9,
  '(root)': 10, // src/index.ts, the public API
};

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');
const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*([^)]*?)\s*\)/g;

interface Edge { from: string; to: string }

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function layerOf(file: string): string {
  const parts = relative(SRC, file).split(/[\\/]/);
  return parts.length > 1 ? parts[0]! : '(root)';
}

/** Layers below the guard know nothing of MCP: the SDK is the proxy's business. */
const SDK_FREE = new Set(['core', 'detectors', 'policy', 'llm', 'store', 'retrieval', 'guard']);

/**
 * Dynamic imports by a name held in a variable that are known to stay inside their layer. The long-text pool's
 * worker (an `eval` script, so no relative specifier resolves in it) imports the pool's worker module, whose URL
 * text-pool.ts derives from its own, and tsx's loader API from the sources only.
 */
const DYNAMIC_KNOWN = new Set(['guard/text-pool.ts: import(workerData.tsx)', 'guard/text-pool.ts: import(workerData.url)']);

function scan(): { edges: Edge[]; dynamicByVariable: string[]; sdkImports: string[]; files: string[] } {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const edges: Edge[] = [];
  const dynamicByVariable: string[] = [];
  const sdkImports: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, '');
    for (const m of text.matchAll(IMPORT)) {
      let spec = m[1];
      if (m[2] !== undefined) {
        const arg = m[2];
        if (!/^['"`][^'"`$]*['"`]$/.test(arg)) {
          const site = `${relative(SRC, file)}: import(${arg})`;
          if (!DYNAMIC_KNOWN.has(site)) dynamicByVariable.push(site);
          continue;
        }
        spec = arg.slice(1, -1);
      }
      if (spec?.startsWith('@modelcontextprotocol/') && SDK_FREE.has(layerOf(file))) sdkImports.push(`${relative(SRC, file)}: ${spec}`);
      if (!spec?.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      const to = known.has(target) ? target : known.has(join(target, 'index.ts')) ? join(target, 'index.ts') : undefined;
      if (to) edges.push({ from: file, to });
    }
  }
  return { edges, dynamicByVariable, sdkImports, files };
}

function cycles(files: string[], edges: Edge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)!.push(e.to);
  // Tarjan's strongly connected components; any component with more than one file is a cycle.
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(relative(SRC, w));
      } while (w !== v);
      if (scc.length > 1 || next.get(v)!.includes(v)) found.push(scc.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}

describe('layering of src/', () => {
  const { edges, dynamicByVariable, sdkImports, files } = scan();

  it('knows the rank of every folder', () => {
    const unknown = [...new Set(files.map(layerOf))].filter((l) => LAYERS[l] === undefined);
    expect(unknown, 'add new folders to LAYERS and docs/architecture.md').toEqual([]);
  });

  it('imports only downwards', () => {
    const bad = edges
      .filter((e) => layerOf(e.from) !== layerOf(e.to) && LAYERS[layerOf(e.to)]! >= LAYERS[layerOf(e.from)]!)
      .map((e) => `${relative(SRC, e.from)} -> ${relative(SRC, e.to)}`);
    expect(bad).toEqual([]);
  });

  it('has no import cycle between files', () => {
    expect(cycles(files, edges)).toEqual([]);
  });

  it('keeps the MCP SDK out of the layers below the proxy', () => {
    expect(sdkImports).toEqual([]);
  });

  it('imports no module through a name held in a variable', () => {
    expect(dynamicByVariable).toEqual([]);
  });

  it('really finds imports (the scanner is not blind)', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges.some((e) => relative(SRC, e.from) === 'cli/index.ts')).toBe(true);
  });
});
