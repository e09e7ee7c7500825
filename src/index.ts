/**
 * Public library surface of QuadGuard: embed the guard in your own host or proxy. The CLI (`quadguard`) is the
 * other entry point.
 *
 * @example
 * import { loadGuard } from 'quadguard';
 * const { pipeline } = await loadGuard({ policy: 'policies/default', store: '.quadguard/state.db' });
 * const decision = await pipeline.check({ kind: 'tool_call', agent: 'me', session: 's1', profile: {},
 *   server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } });
 */
export * from './core/errors.js';
export * from './core/types.js';
export { loadGuard, prepareBook, type LoadGuardOptions, type LoadedGuard } from './guard/factory.js';
export { GuardPipeline, type PipelineDeps } from './guard/pipeline.js';
export { PipelineOptionsSchema, type PipelineOptions } from './guard/options.js';
export * from './policy/index.js';
export { compileDetector, detectorTypes } from './detectors/index.js';
export type { Detector, DetectorResult, DetectorContext } from './detectors/types.js';
export { openStore, type Store } from './store/index.js';
export { createProxy, type ProxyOptions } from './proxy/index.js';
export { loadConfigFile, validateConfig, type LoadedConfig } from './config/load.js';
export { ConfigSchema, type Config } from './config/schema.js';
