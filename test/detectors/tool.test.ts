import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compileGlob } from '../../src/core/glob.js';
import '../../src/detectors/tool.js';
import { call, compile, configError, interaction } from './helpers.js';

describe('tool detector', () => {
  it('matches the qualified tool name against globs', () => {
    const d = compile({ type: 'tool', match: ['github__create_*', 'slack__post_message'] });
    expect(d(call({}, { server: 'github', tool: 'create_issue' })).value).toBe('true');
    expect(d(call({}, { server: 'slack', tool: 'post_message' })).evidence).toContain('slack__post_message');
    expect(d(call({}, { server: 'github', tool: 'list_issues' })).value).toBe('false');
    expect(d(call({}, { server: 'gitlab', tool: 'create_issue' })).value).toBe('false');
  });
  it('uses the shared glob syntax (* stays inside a segment, ** crosses __)', () => {
    expect(compile({ type: 'tool', match: ['*delete*'] })(call({}, { server: 'fs', tool: 'delete_file' })).value).toBe('false');
    expect(compile({ type: 'tool', match: ['**delete*'] })(call({}, { server: 'fs', tool: 'delete_file' })).value).toBe('true');
    expect(compile({ type: 'tool', match: ['fs__rea?_file'] })(call({}, { server: 'fs', tool: 'read_file' })).value).toBe('true');
  });
  it('is false without a tool, and outside the listed kinds', () => {
    const d = compile({ type: 'tool', match: ['**'], kinds: ['tool_call'] });
    expect(d(interaction({ kind: 'message', content: 'hi' })).value).toBe('false');
    expect(d(interaction({ kind: 'tool_result', content: 'x' })).value).toBe('false');
    expect(d(call({})).value).toBe('true');
  });
  it('rejects bad globs and kinds', () => {
    expect(configError({ type: 'tool', match: ['fs__{a,b'] }).message).toMatch(/unclosed/);
    expect(configError({ type: 'tool', match: [] }).code).toBe('detector_invalid_options');
    expect(configError({ type: 'tool', match: ['x'], kinds: ['call'] }).code).toBe('detector_invalid_options');
  });

  const valid = (g: string): boolean => {
    try {
      compileGlob(g);
      return true;
    } catch {
      return false;
    }
  };

  it('answers as each glob asked in turn would: the same value and the first matching glob named', () => {
    // The detector asks all its globs joined first; the reference asks each one, in the book's order.
    const part = fc.constantFrom('fs', 'send', 'send_email', 'delete', 'rm', 'post', 'a', 'x_y', '__', '_', '-', 'shell', 'exec');
    const glob = fc.array(fc.oneof(part, fc.constantFrom('*', '**', '?', '{send,post}', '*__*')), { minLength: 1, maxLength: 4 }).map((p) => p.join('')).filter(valid);
    const name = fc.array(part, { minLength: 1, maxLength: 5 }).map((p) => p.join(''));
    fc.assert(
      fc.property(fc.array(glob, { minLength: 1, maxLength: 6 }), fc.array(name, { minLength: 1, maxLength: 8 }), (globs, names) => {
        const d = compile({ type: 'tool', match: globs });
        const each = globs.map((g) => compileGlob(g));
        for (const n of names) {
          const [server, ...rest] = n.split('__');
          const i = call({}, { server: server || 's', tool: rest.join('__') || 't' });
          const qualified = `${server || 's'}__${rest.join('__') || 't'}`;
          const first = globs.findIndex((_, k) => each[k]!(qualified));
          const r = d(i);
          expect(r.value, qualified).toBe(first >= 0 ? 'true' : 'false');
          if (first >= 0) expect(r.evidence).toContain(`matches "${globs[first]}"`);
        }
      }),
      { numRuns: 500 },
    );
  });
});

