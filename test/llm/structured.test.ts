import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LlmError } from '../../src/core/errors.js';
import { parseStructured } from '../../src/llm/structured.js';

const S = z.object({ delta: z.number().int() });
const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return e instanceof LlmError ? e.code : `not an LlmError: ${String(e)}`;
  }
  return 'no error';
};

describe('parseStructured', () => {
  it('parses and validates JSON, tolerating one whole-answer code fence', () => {
    expect(parseStructured('{"delta": 1}', S)).toEqual({ delta: 1 });
    expect(parseStructured('  ```json\n{"delta": -1}\n```  ', S)).toEqual({ delta: -1 });
  });

  it('never guesses: prose, partial JSON, wrong types, empty answers fail', () => {
    expect(code(() => parseStructured('The delta is {"delta": 1}', S))).toBe('llm_malformed_output');
    expect(code(() => parseStructured('{"delta": 1', S))).toBe('llm_malformed_output');
    expect(code(() => parseStructured('{"delta": "1"}', S))).toBe('llm_malformed_output');
    expect(code(() => parseStructured('{"delta": 1.5}', S))).toBe('llm_malformed_output');
    expect(code(() => parseStructured('', S))).toBe('llm_malformed_output');
    expect(code(() => parseStructured(null, S))).toBe('llm_malformed_output');
    expect(code(() => parseStructured('```json\n{"delta": 1}\n``` and more', S))).toBe('llm_malformed_output');
  });

  it('a refusal wins over any content', () => {
    expect(code(() => parseStructured('{"delta": 1}', S, 'I cannot help'))).toBe('llm_refused');
  });

  it('names the schema problem', () => {
    expect(() => parseStructured('{"x": 1}', S)).toThrow(/delta/);
  });
});
