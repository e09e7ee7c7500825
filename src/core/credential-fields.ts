import { forEachSchemaProperty } from './schema-paths.js';

/**
 * The one reader of "is this argument a credential field" (docs/data-flow.md, "Credentials given as credentials"):
 * the credentials-in-context stage (guard/credentials.ts), the `secrets` detector and the audit's masking of keyed
 * values (store/redact.ts) all ask it. A field is a credential field when its name says so (`db_password`,
 * `accessToken`, `api-key`) or when the tool's input schema says so of a field with any name (`value`, `p`): a
 * `format: password` (what OpenAPI and Pydantic's `SecretStr` emit), `writeOnly: true`, `x-sensitive: true`, or a
 * title or description whose head noun is a password, token, API key or secret ("Your API key", "Password for the
 * database user"; not "Name of the secret", "Maximum number of tokens", "Do not put passwords here").
 */

/**
 * The words of a name: `DB_PASSWORD`, `dbPassword`, `db-password` and `APIKey` give their words in lower case. The
 * space before the last capital of a run is put by looking around it: `([A-Z]+)([A-Z][a-z])` read a run of capitals
 * again from each one (test/core/linear-expressions.test.ts keeps it).
 */
export function nameWordsOf(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/(?<=[A-Z])(?=[A-Z][a-z])/g, ' ').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

/** Last words of a name that are a credential by themselves (`password`, `db_pwd`, `client-secret`, `pin`). */
const CREDENTIAL_WORDS: ReadonlySet<string> = new Set(['password', 'passwd', 'passphrase', 'pwd', 'passcode', 'secret', 'credential', 'credentials', 'apikey', 'pin']);
/** One-word names that end in a credential (`dbpassword`, `APIKEY`, `accesstoken`, `clientsecret`). */
const CREDENTIAL_SUFFIX = /(?:password|passwd|passphrase|passcode|pwd|secret|apikey|accesskey|secretkey|privatekey|accesstoken|authtoken)$/;
/** Words before `key` that make it a credential (`api_key`, `secretKey`, `ssh-key`); a bare `key` is a lookup key. */
const KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  'api', 'access', 'secret', 'private', 'signing', 'encryption', 'license', 'licence', 'ssh', 'auth', 'client', 'master',
  'consumer', 'subscription', 'app', 'developer', 'service', 'session', 'shared', 'account', 'gpg', 'pgp', 'rsa', 'bearer', 'hmac', 'webhook',
]);
/** Words before `token` that make it a position, not a credential (`page_token`, `nextToken`, `continuation-token`). */
const TOKEN_NOT_SECRET: ReadonlySet<string> = new Set(['page', 'next', 'prev', 'previous', 'continuation', 'cursor', 'pagination', 'sync', 'resume', 'start', 'end', 'max', 'min', 'num', 'count', 'stop']);

/** Every credential name holds one of these (a cheap first test: the audit asks it of every key it keeps). */
const MAY_NAME_CREDENTIAL = /pass|pwd|secret|token|key|cred|pin/i;

/** Whether a field's own name (one key, not a path) says it holds a credential. */
export function isCredentialName(name: string): boolean {
  if (!MAY_NAME_CREDENTIAL.test(name)) return false;
  const words = nameWordsOf(name);
  const last = words.at(-1);
  if (last === undefined) return false;
  const before = words.at(-2);
  if (last === 'key') return before !== undefined && KEY_QUALIFIERS.has(before);
  if (last === 'token') return before === undefined || !TOKEN_NOT_SECRET.has(before);
  return CREDENTIAL_WORDS.has(last) || CREDENTIAL_SUFFIX.test(last);
}

/**
 * Whether the argument at `field` is a credential field. `field` is named as the detectors name fields
 * (`arguments.db.password`, `arguments.keys.0`) or is a bare key; `schemaKeys` are the tool's credential fields by
 * its schema (`schemaCredentialKeys`), as paths below the arguments without list indices (`auth.value`). A value
 * nested under such a field (each element of a list under `password`) is one too.
 */
export function isCredentialField(field: string, schemaKeys: readonly string[] = []): boolean {
  // The name tested is a part of `field`: where `field` holds none of the literals every credential name holds, no
  // part does (the audit asks this of every key it records; most have no schema keys to match).
  if (schemaKeys.length === 0 && !MAY_NAME_CREDENTIAL.test(field)) return false;
  const parts = field.split('.').filter((p) => !/^\d+$/.test(p));
  if (parts[0] === 'arguments') parts.shift();
  const name = parts.at(-1);
  if (name === undefined) return false;
  if (isCredentialName(name)) return true;
  if (schemaKeys.length === 0) return false;
  const path = parts.join('.');
  return schemaKeys.some((k) => path === k || path.startsWith(`${k}.`));
}

const MAX_KEYS = 256;

/**
 * The fields of a tool's JSON Schema `inputSchema` that its schema marks as credentials, as dotted paths below the
 * arguments (list items are their list's path). Nested objects, arrays and `anyOf`/`oneOf`/`allOf` are followed;
 * a field with a closed set of values (`enum`, `const`) or of a type other than string is never one.
 */
export function schemaCredentialKeys(schema: unknown): string[] {
  const keys = new Set<string>();
  forEachSchemaProperty(schema, (_name, path, p) => {
    if (schemaSaysCredential(p)) keys.add(path);
  });
  return [...keys].slice(0, MAX_KEYS);
}

/** Whether one property's schema (or its list items') says it holds a credential. */
function schemaSaysCredential(p: Record<string, unknown>): boolean {
  const item = p.type === 'array' && p.items !== null && typeof p.items === 'object' ? (p.items as Record<string, unknown>) : p;
  if (!mayHoldText(item)) return false;
  if (typeof item.format === 'string' && item.format.toLowerCase() === 'password') return true;
  if (item.writeOnly === true || p.writeOnly === true || item['x-sensitive'] === true || p['x-sensitive'] === true) return true;
  return [p.title, p.description].some((t) => typeof t === 'string' && describesCredential(t));
}

/** A free string: no closed set of values, and a string type (or none said). */
function mayHoldText(s: Record<string, unknown>): boolean {
  if (s.enum !== undefined || s.const !== undefined) return false;
  const t = s.type;
  if (t === undefined) return true;
  return t === 'string' || (Array.isArray(t) && t.includes('string'));
}

/** A credential noun phrase ("API key", "personal access token", "password", "client secret"). */
const CREDENTIAL_PHRASE =
  /\b(?:(?:api|access|secret|private|signing|encryption|license|ssh|client|account|subscription|app|developer|service|master|consumer)[ _-]?keys?|(?:(?:personal )?access|auth|authentication|authorization|bearer|refresh|id|session|oauth|oauth2|api|security|jwt|github|slack)[ _-]tokens?|apikeys?|tokens?|passwords?|passphrases?|passcodes?|pin(?: code| number)?|client secrets?|secrets?|credentials?)\b/i;
/** Words after the phrase that make it an attribute of a credential, not one ("secret name", "token budget"). */
const ATTRIBUTE_AFTER =
  /^\s*(?:names?|ids?|identifiers?|labels?|alias(?:es)?|policy|policies|length|expiry|expiration|expires|count|types?|references?|refs?|paths?|files?|arns?|versions?|hints?|reset|strength|rotation|scopes?|limits?|usage|budget|manager|store|vault|field|login|prompt|location|settings?|format|mode|status|owner)\b/i;
/**
 * Words before the phrase that make it something else than the value: a preposition (it qualifies another noun:
 * "Name of the secret", "Username for the API key"), a count or position ("Number of tokens", "Page token"), a negation.
 */
const NOT_THE_VALUE: ReadonlySet<string> = new Set([
  'of', 'for', 'with', 'to', 'in', 'from', 'by', 'on', 'at', 'about', 'whose', 'which', 'that', 'than', 'into', 'and', 'or',
  'name', 'id', 'number', 'count', 'max', 'maximum', 'min', 'minimum', 'page', 'next', 'continuation', 'cursor', 'pagination',
  'whether', 'if', 'not', 'no', 'never', 'without', "don't", 'avoid', 'exclude', 'except',
]);
/** Words allowed before the phrase: the head noun comes within the first few words ("Your GitHub personal access token"). */
const MAX_WORDS_BEFORE = 3;

/** Whether a title or description says the field IS a credential: its first noun phrase ends in one. */
export function describesCredential(text: string): boolean {
  const first = text.replace(/^\s*(?:\((?:optional|required)\)|(?:optional|required)[.:])\s*/i, '').split(/[.;:\n(]/, 1)[0] ?? '';
  const m = CREDENTIAL_PHRASE.exec(first);
  if (!m) return false;
  const before = first.slice(0, m.index).trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (before.length > MAX_WORDS_BEFORE || before.some((w) => NOT_THE_VALUE.has(w.replace(/[^a-z']/g, '')))) return false;
  return !ATTRIBUTE_AFTER.test(first.slice(m.index + m[0].length));
}
