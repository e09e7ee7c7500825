import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/load.js';

describe('config: a2a.agents', () => {
  it('accepts an agent by URL with defaults, and reads its bearer token from the environment', () => {
    const { config } = validateConfig({ a2a: { agents: { writer: { url: 'http://127.0.0.1:9000', bearer_token: { env: 'WRITER_TOKEN' } } } } }, { env: { WRITER_TOKEN: 'downstream-secret' } });
    expect(config.a2a.agents.writer).toMatchObject({ url: 'http://127.0.0.1:9000', headers: {}, timeout_ms: 60_000, push_notifications: false, bearer_token: { value: 'downstream-secret' } });
    expect(config.a2a.v0_3).toBe(true);
  });

  it('names each bad field: a name that is no path segment, a URL that is not http(s), an unset token, an unknown key', () => {
    const bad = () => validateConfig({ a2a: { agents: { 'Bad Name': { url: 'http://x' }, ok: { url: 'ftp://x' } }, typo: true } });
    expect(bad).toThrow(/A2A agent name must be 1–32 characters/);
    expect(bad).toThrow(/a2a\.agents\.ok\.url: url must be an http:\/\/ or https:\/\/ URL/);
    expect(bad).toThrow(/a2a\.typo: unknown key "typo"/);
    expect(() => validateConfig({ a2a: { agents: { w: { url: 'http://x', bearer_token: { env: 'NOPE_UNSET' } } } } }, { env: {} })).toThrow(/a2a\.agents\.w\.bearer_token\.env: environment variable NOPE_UNSET is not set/);
  });
});
