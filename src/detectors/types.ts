import { z } from 'zod';
import type { Interaction, Truth } from '../core/types.js';

/**
 * The contract of the deterministic toolbox. A detector is compiled once when a policy book loads (bad options
 * throw `DetectorConfigError` then) and is then a pure, synchronous function of one interaction. Missing or
 * malformed input makes it answer `unknown`, never a silent `false`.
 */
export interface DetectorResult {
  value: Truth;
  /** Strength of the evidence in [0, 1] (e.g. an injection score); 1 for exact matches. */
  score?: number;
  /** Short, redacted description of what matched (never a caught secret in clear). */
  evidence?: string;
  /** Spans of inspected text that matched, for redaction of results: [start, end) offsets into `text`. */
  spans?: Array<{ field: string; start: number; end: number }>;
}

/** A compiled detector. The function name is the detector type, so stack traces say which one ran. */
export type Detector = (interaction: Interaction) => DetectorResult;

/** What a detector factory gets besides its options. */
export interface DetectorContext {
  /** Where the spec sits in the book (`predicates[3].detectors[0]`), for error messages. */
  path: string;
  /** Directory of the policy book, for detectors that load side files (access lists). */
  bookDir?: string;
}

/** A deterministic check from the toolbox. `type` selects the detector; its other keys are validated by it. */
export const DetectorSpecSchema = z.looseObject({
  type: z.string().min(1),
});
export type DetectorSpec = z.infer<typeof DetectorSpecSchema>;
