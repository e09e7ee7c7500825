import { z } from 'zod';
import { DetectorConfigError } from '../core/errors.js';
import type { Detector, DetectorContext, DetectorSpec } from './types.js';

/**
 * The toolbox registry: each detector type registers a zod schema for its options and a factory. Books name
 * detectors by `type`; `compileDetector` validates the options and builds the detector once, at load.
 */
export interface DetectorDefinition<S extends z.ZodType = z.ZodType> {
  type: string;
  /** One line for `policy check` and docs. */
  summary: string;
  options: S;
  create(options: z.infer<S>, ctx: DetectorContext): Detector;
}

const registry = new Map<string, DetectorDefinition>();

/** Adds a detector type. Called once per detector module at import time. */
export function defineDetector<S extends z.ZodType>(def: DetectorDefinition<S>): DetectorDefinition<S> {
  if (registry.has(def.type)) throw new Error(`detector type ${def.type} registered twice`);
  registry.set(def.type, def as unknown as DetectorDefinition);
  return def;
}

/** Registered detector types, sorted. */
export function detectorTypes(): string[] {
  return [...registry.keys()].sort();
}

export function getDetectorDefinition(type: string): DetectorDefinition | undefined {
  return registry.get(type);
}

/**
 * Validates a detector spec and builds the detector. Throws `DetectorConfigError` naming the book path and what
 * is wrong (unknown type, bad options, a regex that does not compile…).
 */
export function compileDetector(spec: DetectorSpec, ctx: DetectorContext): Detector {
  const def = registry.get(spec.type);
  if (!def) {
    throw new DetectorConfigError(
      'detector_unknown_type',
      `${ctx.path}: unknown detector type "${spec.type}" (known: ${detectorTypes().join(', ')})`,
      { location: { path: ctx.path } },
    );
  }
  const { type: _type, ...rest } = spec;
  const parsed = def.options.safeParse(rest);
  if (!parsed.success) {
    throw new DetectorConfigError(
      'detector_invalid_options',
      `${ctx.path}: invalid options for detector "${spec.type}":\n${z.prettifyError(parsed.error)}`,
      { location: { path: ctx.path } },
    );
  }
  return def.create(parsed.data, ctx);
}
