import { z } from 'zod';
import { contentText, defineDetector, getDetectorDefinition } from '../../src/detectors/index.js';
import type { Interaction } from '../../src/core/types.js';
import type { PolicyBookInput } from '../../src/policy/index.js';

/**
 * Test-only detector types (registered once per test worker), so policy tests do not depend on the real
 * toolbox being written in parallel:
 * - `test_flag {arg, score?}`: arguments[arg] true → true, false → false, "throw" → throws, missing → unknown.
 * - `test_contains {text}`: content contains text → true, else false; no content → unknown.
 */
export function registerTestDetectors(): void {
  if (!getDetectorDefinition('test_flag')) {
    defineDetector({
      type: 'test_flag',
      summary: 'test only: reads a boolean argument',
      options: z.strictObject({ arg: z.string().min(1), score: z.number().min(0).max(1).optional() }),
      create({ arg, score }) {
        return function test_flag(i: Interaction) {
          const v = i.arguments?.[arg];
          if (v === 'throw') throw new Error(`boom on ${arg}`);
          if (v === true) return { value: 'true', evidence: `arguments.${arg} is set`, ...(score !== undefined ? { score } : {}) };
          if (v === false) return { value: 'false' };
          return { value: 'unknown', evidence: `arguments.${arg} missing` };
        };
      },
    });
  }
  if (!getDetectorDefinition('test_contains')) {
    defineDetector({
      type: 'test_contains',
      summary: 'test only: content contains a string',
      options: z.strictObject({ text: z.string().min(1) }),
      create({ text }) {
        return function test_contains(i: Interaction) {
          if (i.content === undefined) return { value: 'unknown' };
          const t = contentText(i.content);
          const at = t.indexOf(text);
          return at >= 0
            ? { value: 'true', evidence: `content contains "${text}"`, spans: [{ field: 'content', start: at, end: at + text.length }] }
            : { value: 'false' };
        };
      },
    });
  }
}

/** A predicate decided by `test_flag` on the argument of the same name. */
export function flag(name: string, extra: Record<string, unknown> = {}) {
  return { name, description: `${name} holds`, detectors: [{ type: 'test_flag', arg: name }], ...extra };
}

/** A small valid book: `!(secret & publish)` on tool calls, publish must-check for `*__publish*` tools. */
export function sampleBook(): PolicyBookInput {
  return {
    name: 'sample',
    version: '1',
    predicates: [
      flag('secret', { scope: 'action' }),
      flag('publish', { scope: 'action', tools: ['*__publish*'] }),
      flag('external', { scope: 'action' }),
      flag('unrelated', { scope: 'action', tools: ['mail__*'] }),
    ],
    rules: [
      { id: 'no-secret-publish', text: 'Do not publish secrets.', applies_to: ['tool_call'], formula: '!(secret & publish)', severity: 'critical', hard: true },
      { id: 'no-external-secret', text: 'Secrets stay inside.', applies_to: ['tool_call'], formula: 'secret -> !external', severity: 'high' },
      { id: 'mail-ok', text: 'Mail is fine unless secret.', applies_to: ['tool_call'], formula: '!(unrelated & secret)', severity: 'low' },
    ],
  };
}

/** A tool-call interaction with the given arguments. */
export function call(server: string, tool: string, args: Record<string, unknown> = {}): Interaction {
  return { kind: 'tool_call', agent: 'a', session: 's', profile: {}, server, tool, arguments: args };
}
