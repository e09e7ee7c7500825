import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../src/policy/', import.meta.url));

describe('src/policy layering', () => {
  it('imports neither the MCP SDK, nor the proxy, nor guard stages (only the guard/types seam)', () => {
    const offenders: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const text = readFileSync(`${dir}${f}`, 'utf8');
      for (const m of text.matchAll(/from '([^']+)'/g)) {
        const spec = m[1]!;
        if (spec.startsWith('@modelcontextprotocol') || spec.includes('/proxy') || spec.includes('/cli') || (spec.includes('/guard/') && !spec.endsWith('/guard/types.js'))) {
          offenders.push(`${f}: ${spec}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
