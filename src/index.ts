/** Public library surface of QuadGuard. The CLI (`quadguard`) is the other entry point. */
export * from './errors.js';
export * from './guard/types.js';
export * from './policy/schema.js';
export type { Detector, DetectorResult, DetectorContext } from './detectors/types.js';
