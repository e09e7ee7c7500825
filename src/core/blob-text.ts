/**
 * Text hidden in base64 payloads of MCP content (embedded resource `blob`s, image/audio `data`): decoded when
 * the MIME type says text, or when the decoded bytes sniff as text (valid UTF-8, few control characters). Binary
 * payloads stay unread: an injection needs a reader, and a model reads only what decodes to text.
 */

/** MIME types whose payload is text whatever the bytes look like. */
const TEXT_MIME = /^(?:text\/|application\/(?:json|ld\+json|xml|xhtml\+xml|javascript|ecmascript|x-sh|x-shellscript|x-yaml|yaml|toml|x-www-form-urlencoded|csv|sql|graphql|rtf|x-httpd-php|x-python|x-ndjson|[\w.+-]*\+(?:json|xml)))|^image\/svg\+xml/i;

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Bytes sampled to decide whether a payload of unknown type is text. */
const SNIFF_BYTES = 8192;

/** True when `bytes` looks like UTF-8 text: decodes without errors and holds under 2% control characters. */
export function sniffText(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  const sample = bytes.subarray(0, SNIFF_BYTES);
  let text: string;
  try {
    // A sample cut inside a multi-byte character would fail `fatal`; trim up to 3 continuation bytes.
    let end = sample.length;
    if (bytes.length > SNIFF_BYTES) while (end > sample.length - 4 && end > 0 && ((sample[end - 1] as number) & 0xc0) === 0x80) end--;
    if (bytes.length > SNIFF_BYTES && end > 0 && (sample[end - 1] as number) >= 0xc0) end--;
    text = new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, end));
  } catch {
    return false;
  }
  let control = 0;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0) return false;
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12) control++;
  }
  return control <= text.length * 0.02;
}

/** The text of a base64 payload, or '' when it is binary or not base64. */
export function blobText(data: string, mimeType?: string): string {
  const compact = data.replace(/\s+/g, '');
  if (compact.length === 0 || !BASE64.test(compact)) return '';
  const bytes = Buffer.from(compact, compact.includes('-') || compact.includes('_') ? 'base64url' : 'base64');
  if ((mimeType !== undefined && TEXT_MIME.test(mimeType)) || sniffText(bytes)) return bytes.toString('utf8');
  return '';
}
