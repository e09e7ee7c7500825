/**
 * The deterministic toolbox. Importing this module registers every detector type; use `compileDetector` from
 * here so that the registry is always complete.
 */
// @detector-modules (one import per detector module; keep sorted)
import './flow.js';
import './injection/index.js';
import './keywords.js';
import './path-name.js';
import './path.js';
import './pii.js';
import './profile/index.js';
import './rate.js';
import './regex.js';
import './secrets/index.js';
import './semantic-category.js';
import './shell/index.js';
import './sql/index.js';
import './tool.js';
import './url-domain.js';

export { compileDetector, detectorTypes, getDetectorDefinition, defineDetector } from './registry.js';
export type { Detector, DetectorResult, DetectorContext } from './types.js';
export { selectFields, contentText, qualifiedTool, isValidSelector } from '../core/fields.js';
