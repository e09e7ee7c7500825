import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigFile, validateConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/core/errors.js';
import { CLI, ROOT } from '../support/proxy-harness.js';

const dir = mkdtempSync(join(tmpdir(), 'qg-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function errorOf(raw: unknown, env: NodeJS.ProcessEnv = {}): ConfigError {
  try {
    validateConfig(raw, { file: 'q.yaml', baseDir: dir, env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config validation', () => {
  it('takes the audit key from an environment variable (postgres://) or a file relative to the config', () => {
    const pg = { store: 'postgres://qg@db:5432/qg', audit_key: { env: 'QG_KEY' } };
    expect(validateConfig(pg, { baseDir: dir, env: { QG_KEY: 'a'.repeat(64) } }).config.audit_key).toEqual({ env: 'QG_KEY' });
    expect(errorOf(pg).message).toMatch(/audit_key\.env: environment variable QG_KEY is not set/);
    expect(errorOf({ audit_key: { env: 'QG_KEY' } }, { QG_KEY: 'a'.repeat(64) }).message).toMatch(/a SQLite store keeps its audit key in a file/);
    expect(validateConfig({ audit_key: { file: 'secrets/audit.key' } }, { baseDir: dir }).config.audit_key).toEqual({ file: join(dir, 'secrets/audit.key') });
    expect(errorOf({ audit_key: { value: 'x' } }).message).toMatch(/audit_key/);
  });

  it('accepts the documented shape and fills defaults', () => {
    const { config, tokens } = validateConfig(
      {
        servers: { files: { command: 'npx', args: ['-y', 'x'], tools: { deny: ['write_*'] } }, remote: { url: 'http://127.0.0.1:9000/mcp', transport: 'sse', headers: { a: 'b' } } },
        agents: { planner: { token: { env: 'PLANNER_TOKEN' }, profile: { role: 'nursing', age: 30 } } },
      },
      { baseDir: dir, env: { PLANNER_TOKEN: 'p'.repeat(20) } },
    );
    expect(config.servers.files?.timeout_ms).toBe(60_000);
    expect(config.http).toMatchObject({ host: '127.0.0.1', stateless: false, body_limit: '4mb', keep_alive_ms: 65_000 });
    expect(config.message_tool_name).toBe('strict');
    expect(config.store).toBe(join(dir, '.quadguard/state.db'));
    expect(tokens.get('p'.repeat(20))).toBe('planner');
  });

  it.each([
    [{ servers: { files: { command: 'x', bogus: 1 } } }, /servers\.files\.bogus: unknown key "bogus" \(known here: command, args/],
    [{ servers: { files: {} } }, /servers\.files\.command: give exactly one of "command" \(stdio\) or "url"/],
    [{ servers: { Files_1: { command: 'x' } } }, /servers\.Files_1: server key must be/],
    [{ servers: { r: { url: 'ftp://x' } } }, /servers\.r\.url: url must be an http/],
    [{ servers: { r: { url: 'http://x', transport: 'ws' } } }, /servers\.r\.transport: Invalid option/],
    [{ servers: { r: { command: 'x', timeout_ms: -5 } } }, /servers\.r\.timeout_ms: Too small/],
    [{ agents: { a: { token: { value: 'short' } } } }, /agents\.a\.token/],
    [{ http: { body_limit: 'lots' } }, /http\.body_limit/],
    [{ http: { keep_alive_ms: 500 } }, /http\.keep_alive_ms: Too small/],
    [{ policy: 'no/such/policy' }, /policy: path .*no\/such\/policy does not exist/],
    [{ agents: { a: { token: { env: 'MISSING_TOKEN' } } } }, /agents\.a\.token\.env: environment variable MISSING_TOKEN is not set/],
    [{ nonsense: true }, /nonsense: unknown key "nonsense" \(known here: servers, policy/],
  ])('names the field: %j', (raw, pattern) => {
    const err = errorOf(raw);
    expect(err.code).toBe('config_invalid');
    expect(err.message).toMatch(pattern);
  });

  it('reads a remote server\'s OAuth client secret at start (env, file 0600, value) and names what is wrong', () => {
    const remote = (oauth: unknown) => ({ servers: { api: { url: 'http://127.0.0.1:9000/mcp', oauth } } });
    const fromEnv = validateConfig(remote({ client_id: 'qg', client_secret: { env: 'API_SECRET' }, scope: 'tools' }), { baseDir: dir, env: { API_SECRET: 's3cret' } });
    expect(fromEnv.config.servers.api!.oauth).toEqual({ client_id: 'qg', client_secret: { value: 's3cret' }, scope: 'tools' });
    const file = join(dir, 'api-secret');
    writeFileSync(file, 'from-file\n', { mode: 0o600 });
    expect(validateConfig(remote({ client_id: 'qg', client_secret: { file: 'api-secret' } }), { baseDir: dir, env: {} }).config.servers.api!.oauth?.client_secret).toEqual({ value: 'from-file' });
    expect(errorOf(remote({ client_id: 'qg', client_secret: { env: 'NOPE' } })).message).toContain('servers.api.oauth.client_secret.env: environment variable NOPE is not set or empty');
    expect(errorOf({ servers: { local: { command: 'x', oauth: { client_id: 'qg', client_secret: { value: 'v' } } } } }).message).toContain('oauth applies only to remote servers');
  });

  it('reads a remote server\'s OAuth private key at start (env, whole file 0600), and wants exactly one credential and an algorithm', () => {
    const remote = (oauth: unknown) => ({ servers: { api: { url: 'http://127.0.0.1:9000/mcp', oauth } } });
    const pem = '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----';
    const fromEnv = validateConfig(remote({ client_id: 'qg', private_key: { env: 'API_KEY_PEM' }, algorithm: 'ES256' }), { baseDir: dir, env: { API_KEY_PEM: pem } });
    expect(fromEnv.config.servers.api!.oauth).toEqual({ client_id: 'qg', private_key: { value: pem }, algorithm: 'ES256' });
    writeFileSync(join(dir, 'api-key.pem'), `${pem}\n`, { mode: 0o600 });
    expect(validateConfig(remote({ client_id: 'qg', private_key: { file: 'api-key.pem' }, algorithm: 'ES256' }), { baseDir: dir, env: {} }).config.servers.api!.oauth?.private_key).toEqual({ value: pem });
    expect(errorOf(remote({ client_id: 'qg', private_key: { env: 'NOPE' }, algorithm: 'ES256' })).message).toContain('servers.api.oauth.private_key.env: environment variable NOPE is not set or empty');
    expect(errorOf(remote({ client_id: 'qg', private_key: { value: pem } })).message).toContain('private_key needs "algorithm"');
    expect(errorOf(remote({ client_id: 'qg', client_secret: { value: 's' }, private_key: { value: pem }, algorithm: 'ES256' })).message).toContain('exactly one of "client_secret" or "private_key"');
    expect(errorOf(remote({ client_id: 'qg' })).message).toContain('exactly one of "client_secret" or "private_key"');
    expect(errorOf(remote({ client_id: 'qg', client_secret: { value: 's' }, algorithm: 'ES256' })).message).toContain('algorithm applies only with private_key');
  });

  it('reads YAML and JSON files and reports parse errors with the file', () => {
    const y = join(dir, 'ok.yaml');
    writeFileSync(y, 'servers:\n  fs:\n    command: node\n');
    expect(Object.keys(loadConfigFile(y).config.servers)).toEqual(['fs']);
    const j = join(dir, 'bad.json');
    writeFileSync(j, '{"servers": ');
    expect(() => loadConfigFile(j)).toThrow(expect.objectContaining({ code: 'config_parse_error' }));
    expect(() => loadConfigFile(join(dir, 'missing.yaml'))).toThrow(expect.objectContaining({ code: 'config_unreadable' }));
  });
});

describe('shipped sample config', () => {
  it('examples/quadguard.config.yaml validates', () => {
    const { config, tokens } = loadConfigFile(join(ROOT, 'examples', 'quadguard.config.yaml'), { PLANNER_TOKEN: 'x'.repeat(24) });
    expect(Object.keys(config.servers)).toEqual(['workspace', 'mail', 'files']);
    expect(tokens.get('x'.repeat(24))).toBe('planner');
  });
});

describe('quadguard serve with a bad config', () => {
  it('exits non-zero without starting and names the field', () => {
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, 'servers:\n  files:\n    command: node\n    timeout_ms: soon\n');
    const r = spawnSync(process.execPath, [CLI, 'serve', '--config', f], { encoding: 'utf8', input: '', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/config_invalid: .*bad\.yaml is invalid:\n {2}servers\.files\.timeout_ms \(line 4, col 5\): Invalid input: expected number, received string/);
  });

  it('one error per mistake, each at its line and column, a misspelt key with the key it was meant to be', () => {
    const f = join(dir, 'typos.yaml');
    writeFileSync(f, 'servers:\n  files:\n    comand: node\n    args: [x]\nagents:\n  assistant:\n    token: { flie: a.token }\nstroe: x.db\n');
    const r = spawnSync(process.execPath, [CLI, 'serve', '--config', f], { encoding: 'utf8', input: '', timeout: 20_000 });
    expect(r.status).toBe(1);
    const lines = r.stderr.trimEnd().split('\n').slice(1);
    expect(lines).toEqual([
      '  servers.files.comand (line 3, col 5): unknown key "comand"; did you mean "command"?',
      '  agents.assistant.token.flie (line 7, col 14): unknown key "flie"; did you mean "file"?',
      '  stroe (line 8, col 1): unknown key "stroe"; did you mean "store"?',
    ]);
  });

  it('refuses unauthenticated HTTP on a non-loopback address', () => {
    const f = join(dir, 'open.yaml');
    writeFileSync(f, 'servers: {}\n');
    const r = spawnSync(process.execPath, [CLI, 'serve', '--config', f, '--http', '0', '--host', '0.0.0.0'], { encoding: 'utf8', timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/config_insecure: refusing to serve HTTP on 0\.0\.0\.0 without authentication/);
  });
});
