import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';

/** The public surface is deliberate: adding or removing a name is a decision, made here and in docs/architecture.md. */
describe('the public API (src/index.ts)', () => {
  it('exports exactly the documented names', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'AnyInteractionSchema', 'BuildGuardOptionsSchema', 'ConfigError', 'ConfigSchema', 'DecisionSchema', 'DetectorConfigError',
        'DownstreamError', 'GUARD_DEFAULTS', 'INTERACTION_KINDS', 'InteractionSchema', 'KINDS', 'LlmError', 'PipelineOptionsSchema',
        'PolicyBookSchema', 'PolicyError', 'QuadGuardError', 'StoreError', 'bookHash', 'buildGuard', 'compileBook', 'createProxy',
        'errorMessage', 'explainInteraction', 'formatDiagnostic', 'generateSigningKeys', 'guardOptionsFromConfig', 'loadBook',
        'loadConfigFile', 'makeDecision', 'openGuardStore', 'prepareBook', 'signBook', 'validateConfig', 'verifyBook',
      ].sort(),
    );
  });

  it('builds a guard and decides with it, as the example in src/index.ts says', async () => {
    const { pipeline, close } = await api.buildGuard({ policy: 'policies/default' });
    const d = await pipeline.check({ kind: 'tool_call', agent: 'me', session: 's1', profile: {}, server: 'files', tool: 'delete_file', arguments: { path: '/etc/passwd' } });
    expect(d).toMatchObject({ decision: 'deny', rules: ['no-delete-outside-sandbox'] });
    await close();
  });
});
