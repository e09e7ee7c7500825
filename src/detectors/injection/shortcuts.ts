/**
 * Exact short cuts of the injection scorer: prefilters that rule out, before the full computation, what provably
 * cannot fire (a run regex anchored on its rare character, a sentence without any word a cue needs). Each gives
 * the answer of the full computation; `shortcuts.on = false` switches every one of them off, which only the
 * equivalence tests do (test/detectors/injection-shortcuts.test.ts compares both paths).
 */
export const shortcuts = { on: true };
