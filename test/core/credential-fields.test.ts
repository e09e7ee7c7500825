import { describe, expect, it } from 'vitest';
import { describesCredential, isCredentialField, isCredentialName, schemaCredentialKeys } from '../../src/core/credential-fields.js';

describe('isCredentialName: a field named for a credential', () => {
  it('takes the names both former readers took', () => {
    for (const n of ['password', 'db_password', 'DB_PASSWORD', 'userPassword', 'dbpassword', 'passwd', 'passphrase', 'pwd', 'passcode', 'pin', 'secret', 'client_secret', 'clientSecret', 'webhook-secret', 'api_key', 'apiKey', 'api-key', 'x-api-key', 'APIKey', 'apikey', 'APIKEY', 'access_token', 'accessToken', 'auth_token', 'authtoken', 'token', 'refresh_token', 'id_token', 'bearer_token', 'secret_key', 'secretKey', 'private_key', 'ssh_key', 'credentials', 'aws_credentials'])
      expect(isCredentialName(n), n).toBe(true);
  });

  it('leaves lookup keys, positions, counts and attributes of a credential', () => {
    for (const n of ['key', 'sort_key', 'primary_key', 'cacheKey', 'partition_key', 'keyword', 'keys', 'page_token', 'nextToken', 'continuation-token', 'max_tokens', 'maxTokens', 'token_count', 'password_policy', 'secret_name', 'passport_number', 'spinner', 'pinned', 'user', 'value', 'input'])
      expect(isCredentialName(n), n).toBe(false);
  });
});

describe('schemaCredentialKeys: fields a tool schema marks as credentials, whatever their name', () => {
  it('reads format password, writeOnly, x-sensitive and a description naming one', () => {
    const schema = {
      type: 'object',
      properties: {
        host: { type: 'string', description: 'Database host' },
        value: { type: 'string', format: 'password' },
        p: { type: 'string', writeOnly: true },
        input: { type: 'string', 'x-sensitive': true },
        k: { type: 'string', description: 'Your API key for the weather service' },
        t: { type: 'string', title: 'GitHub personal access token' },
        secretish: { type: 'string', description: 'Password for the database user' },
        auth: { type: 'object', properties: { v: { type: 'string', description: 'The OAuth access token.' }, scheme: { type: 'string' } } },
        list: { type: 'array', items: { type: 'string', format: 'password' } },
      },
    };
    expect(schemaCredentialKeys(schema).sort()).toEqual(['auth.v', 'input', 'k', 'list', 'p', 'secretish', 't', 'value']);
  });

  it('leaves descriptions that name a credential without being one, closed choices and non-strings', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Name of the secret to read' },
        n: { type: 'integer', description: 'API key quota' },
        max: { type: 'integer', description: 'Maximum number of tokens to generate' },
        cursor: { type: 'string', description: 'Page token from the previous call' },
        q: { type: 'string', description: 'Search query. Do not include passwords.' },
        warn: { type: 'string', description: 'Do not give us your phone number, pin, or other sensitive info' },
        user: { type: 'string', description: 'Username associated with the API key' },
        id: { type: 'string', description: 'API key ID to revoke' },
        kind: { type: 'string', enum: ['password', 'token'], description: 'Password or token' },
        flag: { type: 'boolean', format: 'password' },
        sk: { type: 'string', description: 'The secret name in the vault' },
      },
    };
    expect(schemaCredentialKeys(schema)).toEqual([]);
  });

  it('survives what is no schema', () => {
    for (const s of [undefined, null, 'x', 3, [], { properties: null }, { properties: { a: null, b: 'x' } }]) expect(schemaCredentialKeys(s)).toEqual([]);
  });

  it('describesCredential reads the head noun of the first phrase', () => {
    expect(describesCredential('(optional) Bearer token used to call the API')).toBe(true);
    expect(describesCredential('Required. Client secret of the OAuth app')).toBe(true);
    expect(describesCredential('The number of tokens')).toBe(false);
  });
});

describe('isCredentialField: the one answer, from name or schema', () => {
  it('reads field paths as the detectors name them', () => {
    expect(isCredentialField('arguments.db.password')).toBe(true);
    expect(isCredentialField('arguments.password.0')).toBe(true);
    expect(isCredentialField('arguments.value')).toBe(false);
    expect(isCredentialField('arguments.value', ['value'])).toBe(true);
    expect(isCredentialField('arguments.auth.v', ['auth.v'])).toBe(true);
    expect(isCredentialField('arguments.list.2', ['list'])).toBe(true);
    expect(isCredentialField('arguments.other.v', ['auth.v'])).toBe(false);
    expect(isCredentialField('arguments.v', ['auth.v'])).toBe(false);
    expect(isCredentialField('arguments', ['value'])).toBe(false);
  });
});
