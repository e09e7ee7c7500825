import { describe, expect, it } from 'vitest';
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
});
