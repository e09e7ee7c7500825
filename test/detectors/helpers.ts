import { DetectorConfigError } from '../../src/core/errors.js';
import { compileDetector } from '../../src/detectors/registry.js';
import type { Detector, DetectorResult } from '../../src/detectors/types.js';
import { InteractionSchema, type Interaction, type InteractionInput } from '../../src/core/types.js';
import { MAX_TOTAL_CHARS } from '../../src/detectors/common.js';

/** Test helpers for the generic detectors: build interactions, compile specs the way a book does. */
export const AT = 'predicates[0].detectors[0]';

export function compile(spec: { type: string } & Record<string, unknown>): Detector {
  return compileDetector(spec, { path: AT });
}

export function interaction(over: Partial<InteractionInput> = {}): Interaction {
  return InteractionSchema.parse({ kind: 'tool_call', agent: 'agent-1', session: 's-1', server: 'fs', tool: 'run', ...over });
}

export const call = (args: Record<string, unknown>, over: Partial<InteractionInput> = {}): Interaction =>
  interaction({ arguments: args, ...over });

export const result = (text: string): Interaction =>
  interaction({ kind: 'tool_result', content: [{ type: 'text', text }] });

/** Runs a spec over the text as a tool result's content. */
export function scan(spec: { type: string } & Record<string, unknown>, text: string): DetectorResult {
  return compile({ field: 'content', ...spec })(result(text));
}

/** The error a bad spec throws, asserting it is a DetectorConfigError located at the spec. */
export function configError(spec: { type: string } & Record<string, unknown>): DetectorConfigError {
  try {
    compile(spec);
  } catch (err) {
    if (!(err instanceof DetectorConfigError)) throw err;
    if (!err.message.startsWith(AT) || err.location?.path !== AT) throw new Error(`error not located: ${err.message}`, { cause: err });
    return err;
  }
  throw new Error(`spec compiled: ${JSON.stringify(spec)}`);
}

/** 5 MB of filler for size tests. */
export const BIG = 'lorem ipsum dolor sit amet '.repeat(200_000);
/** Longer than the detectors read (`MAX_TOTAL_CHARS`): what lies past it is not inspected. */
export const PAST_CAP = 'lorem ipsum dolor sit amet '.repeat(Math.ceil(MAX_TOTAL_CHARS / 27) + 1);
