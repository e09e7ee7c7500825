import { createHmac } from 'node:crypto';
import { isCredentialField } from '../core/credential-fields.js';
import { stringLeaves } from '../core/fields.js';
import type { CapabilityLabel } from '../core/flow.js';
import { normaliseForFingerprint } from '../core/text/fingerprint.js';
import { outgoingPieces } from '../core/text/short-values.js';
import { passwordOk } from '../detectors/secrets/catalogue.js';

/**
 * Credentials in context (docs/data-flow.md, "Credentials given as credentials"). A password, token, key or secret
 * handed to a tool in an argument named for it (`password`, `access_token`, `api_key`, `client_secret`…), or that
 * the tool's input schema marks as one (`format: password`, core/credential-fields.ts), is what
 * the tool needs to do its work: a login, a booking API, a database connection. It is allowed there, and its first
 * use is remembered per identity (a keyed hash of the value and the server it went to, in the data-flow store):
 *
 * - to a tool that is a sink (external send, publication, fetched URL, code execution) it is still a leak;
 * - to another server than the one it was first used with it is a leak (a token of one service sent to another);
 * - in free text (any other field of any call, a message) it is a leak, wherever it goes;
 * - read from a private source, it is also private data: the data-flow rules follow it like any other value.
 */

/** Labels whose calls a credential never goes to, even as a credential. */
export const CREDENTIAL_SINKS: ReadonlySet<CapabilityLabel> = new Set(['external_send', 'public_sink', 'network_fetch', 'code_execution']);

/** Longest value taken for a credential (a PEM key is longer, and always a leak outside a key field anyway). */
const MAX_CREDENTIAL = 4096;

/** A credential given in a field named for one. */
export interface CredentialArg {
  /** `arguments.access_token`, as the detectors name fields. */
  field: string;
  /** Normalised (letters and digits, lower case): the form hashed and matched. */
  normalised: string;
}

/**
 * The credentials among a call's arguments: string leaves in a credential field (by name, or by the tool's schema:
 * `schemaKeys`, the call's `credentialKeys`), long enough to be one.
 */
export function credentialArgs(args: Record<string, unknown> | undefined, schemaKeys?: readonly string[]): CredentialArg[] {
  if (args === undefined) return [];
  const out: CredentialArg[] = [];
  for (const leaf of stringLeaves(args, 'arguments')) {
    if (leaf.field.endsWith('{keys}')) continue;
    const key = leaf.field.split('.').findLast((part) => !/^\d+$/.test(part)) ?? '';
    if (!isCredentialField(leaf.field, schemaKeys) || leaf.text.length > MAX_CREDENTIAL || !passwordOk(leaf.text, `${key}=${leaf.text}`)) continue;
    const normalised = normaliseForFingerprint(leaf.text);
    if (normalised.length >= 4) out.push({ field: leaf.field, normalised });
  }
  return out;
}

/**
 * The pieces of free text a call or message carries, where a remembered credential is looked for: every string
 * leaf but the credential fields themselves, read as the data-flow stage reads outgoing text.
 */
export function freeTextPieces(texts: readonly string[]): string[] {
  return outgoingPieces(texts);
}

/** Keyed hash of a credential (its own domain: it never equals a fingerprint or a short-value hash). */
export function createCredentialHasher(flowKey: Buffer): (normalised: string) => string {
  const key = createHmac('sha256', flowKey).update('quadguard/flow/credentials/v1').digest();
  return (n) => `c${createHmac('sha256', key).update(n).digest('hex').slice(0, 16)}`;
}

/** The source URI under which a credential's first use is kept: which field it was given in. */
export const CREDENTIAL_URI_PREFIX = 'credential:';
