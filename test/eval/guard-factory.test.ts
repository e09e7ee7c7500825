import { describe, expect, it } from 'vitest';
import { EvalRunError } from '../../src/core/errors.js';
import { defaultGuardFactory, isModuleNotFound, toHandle } from '../../src/eval/guard-factory.js';
import { allowAll } from '../../src/core/types.js';

async function rejection(p: Promise<unknown>): Promise<EvalRunError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EvalRunError);
  return err as EvalRunError;
}

describe('defaultGuardFactory', () => {
  it('fails with eval_no_pipeline when the pipeline module is missing', async () => {
    const nodeError = Object.assign(
      new Error("Cannot find module '/app/dist/src/guard/pipeline-factory.js' imported from /app/dist/src/eval/guard-factory.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const guardFor = defaultGuardFactory('./policies', () => Promise.reject(nodeError));
    const err = await rejection(guardFor('default', {}));
    expect(err.code).toBe('eval_no_pipeline');
    expect(err.message).toMatch(/^the guard pipeline is not available in this build/);
    expect(err.cause).toBe(nodeError);
  });

  it('recognises the module-not-found error of this very runtime', async () => {
    const spec = './missing-dir/pipeline-factory.js';
    const real = await import(/* @vite-ignore */ spec).catch((e: unknown) => e);
    expect(isModuleNotFound(real)).toBe(true);
  });

  it('does not mistake a module the pipeline imports being missing for a missing pipeline', async () => {
    const transitive = Object.assign(
      new Error("Cannot find module '/app/dist/src/guard/tracker.js' imported from /app/dist/src/guard/pipeline-factory.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    expect(isModuleNotFound(transitive)).toBe(false);
    const err = await rejection(defaultGuardFactory('p', () => Promise.reject(transitive))('default', {}));
    expect(err.code).toBe('eval_pipeline_failed');
  });

  it('fails with eval_no_pipeline when the module lacks createGuardForCase', async () => {
    const err = await rejection(defaultGuardFactory('p', async () => ({ somethingElse: 1 }))('default', {}));
    expect(err.code).toBe('eval_no_pipeline');
  });

  it('imports the module once and passes policies dir, policy and context to createGuardForCase', async () => {
    let imports = 0;
    const calls: unknown[][] = [];
    const guardFor = defaultGuardFactory('/books', async () => {
      imports++;
      return {
        createGuardForCase: async (...args: unknown[]) => {
          calls.push(args);
          return allowAll; // a bare Guard is accepted too
        },
      };
    });
    const h1 = await guardFor('default', { agent: 'a' });
    await guardFor('eicu-ac', { profile: { role: 'nursing' } });
    expect(imports).toBe(1);
    expect(calls).toEqual([
      ['/books', 'default', { agent: 'a' }],
      ['/books', 'eicu-ac', { profile: { role: 'nursing' } }],
    ]);
    expect(h1.guard).toBe(allowAll);
    expect(h1.close).toBeUndefined();
  });
});

describe('toHandle', () => {
  it('accepts a handle or a guard and rejects anything else', () => {
    const close = () => {};
    expect(toHandle({ guard: allowAll, close })).toEqual({ guard: allowAll, close });
    expect(toHandle(allowAll)).toEqual({ guard: allowAll });
    expect(() => toHandle({} as never)).toThrow(/neither a Guard/);
  });
});
