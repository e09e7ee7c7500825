import { isCredentialName } from '../../../src/core/credential-fields.js';

/** `isCredentialField` as it was before its early exit for fields without a credential literal (the reference). */
export function isCredentialFieldBefore(field: string, schemaKeys: readonly string[] = []): boolean {
  const parts = field.split('.').filter((p) => !/^\d+$/.test(p));
  if (parts[0] === 'arguments') parts.shift();
  const name = parts.at(-1);
  if (name === undefined) return false;
  if (isCredentialName(name)) return true;
  if (schemaKeys.length === 0) return false;
  const path = parts.join('.');
  return schemaKeys.some((k) => path === k || path.startsWith(`${k}.`));
}
