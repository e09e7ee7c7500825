import { z } from 'zod';
import { LlmError } from '../core/errors.js';

/**
 * Structured outputs: the model's answer is parsed as JSON and validated with a zod schema. Anything else (prose,
 * truncated JSON, a schema mismatch, a refusal) is a FAILED evaluation (`llm_malformed_output` / `llm_refused`),
 * never a guess: we do not fish a JSON object out of surrounding prose, and we do not coerce types.
 *
 * The one tolerance: an answer that is exactly one Markdown code fence around the JSON (```json … ```), which
 * small local models emit even in JSON mode; the fence is stripped, the content must still be the whole answer.
 */
// eslint-disable-next-line regexp/no-super-linear-backtracking -- run only on an answer ending in ``` (fenceContent): the first split of the white space after the opening that meets a \n then succeeds, so the answer is read once
const FENCE = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/;

/**
 * What an answer that is one code fence holds, else undefined. An answer not ending in ``` cannot match, and the
 * expression would split a run of white space after the opening every way before failing (quadratic in it).
 */
export const fenceContent = (body: string): string | undefined => (body.endsWith('```') ? FENCE.exec(body)?.[1] : undefined);

/** Longest model answer we parse; longer answers are malformed by construction (outputs are short on purpose). */
export const MAX_ANSWER_CHARS = 200_000;

/**
 * Parses `text` as JSON and validates it against `schema`. `refusal` is the `refusal` field of the chat message,
 * when the endpoint set one.
 *
 * @example
 * const v = parseStructured('{"delta":1}', z.object({ delta: z.number() }));
 */
export function parseStructured<S extends z.ZodType>(
  text: string | null | undefined,
  schema: S,
  refusal?: string | null,
): z.output<S> {
  if (typeof refusal === 'string' && refusal.length > 0) {
    throw new LlmError('llm_refused', `the model refused to answer: ${clip(refusal)}`);
  }
  if (typeof text !== 'string' || text.trim().length === 0) {
    throw new LlmError('llm_malformed_output', 'the model returned an empty answer');
  }
  if (text.length > MAX_ANSWER_CHARS) {
    throw new LlmError('llm_malformed_output', `the model's answer is too long (${text.length} characters)`);
  }
  let body = text.trim();
  const fenced = fenceContent(body);
  if (fenced !== undefined) body = fenced.trim();
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    throw new LlmError('llm_malformed_output', `the model's answer is not JSON: ${clip(body)}`, { cause: err });
  }
  const r = schema.safeParse(raw);
  if (!r.success) {
    throw new LlmError(
      'llm_malformed_output',
      `the model's answer does not match the expected schema:\n${z.prettifyError(r.error)}`,
      { cause: r.error },
    );
  }
  return r.data;
}

function clip(s: string, n = 120): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? `${one.slice(0, n)}…` : one;
}
