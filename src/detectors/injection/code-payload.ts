import { mayOfferCode } from './fast-paths.js';
import type { Finding } from './finding.js';
import type { HoldsLiteral } from './gate-literals.js';
import { WRITING_ORDER_START } from './lexicon.js';

/** `code_payload`: code offered for the reader's solution, with a payload that exfiltrates, destroys or runs downloaded code. */

/** Code offered for inclusion in the reader's work. */
export const CODE_OFFER =
  /\b(?:the |this )?(?:following|subsequent|below|next|provided|attached)\s+(?:\w+\s+)?(?:code|script|snippet|command)(?:\s+(?:block|snippet|excerpt|section|segment|fragment|piece|lines?))?\b|\b(?:the|this) (?:code|script|snippet|command)(?: (?:block|snippet|excerpt|section))? (?:below|above|that follows)\b/i;
const CODE_INTO_YOURS = /\b(?:your|the) (?:code(?:base)?|solution|implementation|program|script|project|algorithm|answer|application|framework|structure|logic)\b|\bthe code you (?:develop|write|produce)\b/i;
/** Code that phones home, runs downloaded code, destroys data or dumps the environment. */
const STRONG_RISKY_CODE =
  /\brequests\.(?:post|put)\s*\(|\bsocket\.socket\b|\bftplib\b|\bparamiko\b|\bsmtplib\b|\bmqtt\b|\brm\s+-rf\s+\/|\bdd\s+if=|\bmkfs\b|\bsystemctl\s+stop\b|\bos\.remove\s*\(\s*["']\/(?:etc|lib|usr|bin|boot|sys)|\b(?:curl|wget)\b[^\n]{0,160}(?:\|\s*(?:ba)?sh|chmod|exec|nohup)|exec\s*\(\s*open\s*\(|\bos\.environ\b[^\n]{0,200}\b(?:post|send|upload)|\bminer\b|\bexploit\b|open\s*\(\s*["'][^"'\n]{0,40}cookies/i;
/** Code worth a second look (shell-outs, dynamic execution, environment access). */
const RISKY_CODE =
  /\bos\.system\s*\(|\bsubprocess\.|\bexec\s*\(|\beval\s*\(|\brequests\.(?:post|put)\s*\(|\bos\.environ\b|\bsocket\.socket\b|\bftplib\b|\bparamiko\b|\bsmtplib\b|\brm\s+-rf\b|\bchmod\s+\+x\b|\b(?:curl|wget)\b[^\n]{0,120}(?:\|\s*(?:ba)?sh|-o\b)|\bpowershell\b[^\n]{0,40}-e(?:nc)?\b|\bdd\s+if=|\bmkfs\b|\bsystemctl\s+stop\b|\bos\.remove\s*\(|\bshutil\.rmtree\b|\bpickle\.load|\bcookies?\b[^\n]{0,60}\bopen\s*\(/i;

/** Code offered for the reader's solution, with a payload that exfiltrates, destroys or runs downloaded code. */
export function codePayload(text: string, holds?: HoldsLiteral): Finding | undefined {
  // The offer's expression, tried from every position, costs several times one search for its nouns.
  if (!mayOfferCode(text, holds)) return undefined;
  const offer = CODE_OFFER.exec(text);
  if (!offer) return undefined;
  const window = text.slice(Math.max(0, offer.index - 200), offer.index + 200);
  const directed = CODE_INTO_YOURS.test(window);
  const body = text.slice(offer.index, offer.index + 2000);
  const risky = RISKY_CODE.test(body);
  const strong = STRONG_RISKY_CODE.test(body);
  const sentenceStart = text.lastIndexOf('\n', offer.index) + 1;
  const imperative = WRITING_ORDER_START.test(text.slice(sentenceStart, offer.index + 1).trim());
  if (directed && (risky || strong)) return { signal: 'code_payload', detail: 'risky code offered for your solution', weight: 0.7 };
  if (imperative && strong) return { signal: 'code_payload', detail: 'order to include exfiltrating or destructive code', weight: 0.6 };
  if (risky || strong) return { signal: 'code_payload', detail: 'risky code after "the following code"', weight: 0.35 };
  return undefined;
}
