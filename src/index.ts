/**
 * Public library surface of QuadGuard: embed the guard in your own host or proxy. The CLI (`quadguard`) is the
 * other entry point.
 *
 * @example
 * import { buildGuard } from 'quadguard';
 * const { pipeline } = await buildGuard({ policy: 'policies/default', store: '.quadguard/state.db' });
 * const decision = await pipeline.check({ kind: 'tool_call', agent: 'me', session: 's1', profile: {},
 *   server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } });
 */
export * from './core/errors.js';
export * from './core/types.js';
export { buildGuard, BuildGuardOptionsSchema, prepareBook, type BuildGuardOptions, type BuiltGuard, type PreparedBook } from './guard/build.js';
export { guardOptionsFromConfig } from './config/guard.js';
export { GuardPipeline, type PipelineDeps } from './guard/pipeline.js';
export { GUARD_DEFAULTS, PipelineOptionsSchema, type PipelineOptions } from './guard/options.js';
export * from './policy/index.js';
export { compileDetector, detectorTypes } from './detectors/index.js';
export type { Detector, DetectorResult, DetectorContext } from './detectors/types.js';
export { openStore, type Store } from './store/index.js';
export { createProxy, type ProxyOptions } from './proxy/index.js';
export { loadConfigFile, validateConfig, type LoadedConfig } from './config/load.js';
export { ConfigSchema, type Config } from './config/schema.js';
