import { describe, expect, it } from 'vitest';
import { compileBook, CHECK_STAGES, PolicyBookError, type PolicyBookInput, type PolicyDiagnostic } from '../../src/policy/index.js';
import { flag, registerTestDetectors, sampleBook } from './support.js';

registerTestDetectors();

function errorsOf(book: PolicyBookInput): PolicyDiagnostic[] {
  try {
    compileBook(book);
  } catch (e) {
    if (e instanceof PolicyBookError) return e.errors;
    throw e;
  }
  throw new Error('expected the book to fail');
}
const warningsOf = (book: PolicyBookInput) => compileBook(book).warnings;
const rule = (id: string, formula: string, extra: Record<string, unknown> = {}) => ({
  id, text: 't', applies_to: ['tool_call'] as const, formula, severity: 'low' as const, ...extra,
});
const book = (predicates: unknown[], rules: unknown[]): PolicyBookInput => ({ name: 'b', version: '1', predicates, rules }) as PolicyBookInput;

describe('compileBook', () => {
  it('compiles a clean book without warnings', () => {
    const { compiled, warnings } = compileBook(sampleBook());
    expect(warnings).toEqual([]);
    expect(compiled.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(compiled.rules.map((r) => [r.id, r.predicates, r.index])).toEqual([
      ['no-secret-publish', ['secret', 'publish'], 0],
      ['no-external-secret', ['secret', 'external'], 1],
      ['mail-ok', ['unrelated', 'secret'], 2],
    ]);
    expect(compiled.byName.get('publish')).toMatchObject({ index: 1, semantic: false });
  });

  it('runs its stages in a fixed, named order', () => {
    expect(CHECK_STAGES.map((s) => s.name)).toEqual([
      'duplicatePredicates', 'compilePredicates', 'parseFormulas', 'duplicateRules', 'resolvePredicates',
      'buildRules', 'checkSatisfiable', 'checkUnused', 'checkSemantic', 'checkScopes', 'checkEffects',
    ]);
  });

  it('reports undefined predicates with a suggestion and the column in the formula', () => {
    const errs = errorsOf(book([flag('publish_content'), flag('sensitive_info')], [rule('r', '!(sensitive_info & publish_contnet)')]));
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatchObject({
      code: 'policy_undefined_predicate',
      message: 'rule r uses undefined predicate publish_contnet (did you mean publish_content?)',
      location: { path: 'rules[0].formula' },
    });
    expect(errorsOf(book([flag('a')], [rule('r', '!(a & zzzzzz)')]))[0]!.message).not.toMatch(/did you mean/);
  });

  it('collects every error (duplicates, parse, detector, glob, schema-valid but wrong) in one pass', () => {
    const errs = errorsOf(
      book(
        [flag('a'), flag('a'), { name: 'b', description: 'd', detectors: [{ type: 'no_such_detector' }] }, flag('c', { tools: ['x__{'] })],
        [rule('r1', '!(a &'), rule('r1', '!b'), rule('r3', '!c & !zz')],
      ),
    );
    expect(errs.map((e) => e.code)).toEqual([
      'policy_duplicate_predicate',
      'policy_detector_error',
      'policy_glob_error',
      'policy_parse_error',
      'policy_duplicate_rule',
      'policy_undefined_predicate',
    ]);
    expect(errs[1]!.location?.path).toBe('predicates[2].detectors[0]');
    expect(errs[1]!.message).toMatch(/unknown detector type "no_such_detector"/);
    expect(errs[3]!.message).toMatch(/rule r1: unexpected end of formula/);
  });

  it('caps errors at 10 and says how many more there were', () => {
    const rules = Array.from({ length: 14 }, (_, i) => rule(`r${i}`, `!undefined_${i}`));
    const errs = errorsOf(book([flag('a')], [rule('ok', '!a'), ...rules]));
    expect(errs).toHaveLength(11);
    expect(errs[10]).toMatchObject({ code: 'policy_too_many_errors', message: '4 more error(s) not shown' });
  });

  it('reports schema errors with their path', () => {
    const errs = errorsOf({ name: 'b', version: '1', predicates: [{ name: 'Bad', description: 'd' }], rules: [{ id: 'r' }] } as never);
    expect(errs.every((e) => e.code === 'policy_schema_error')).toBe(true);
    expect(errs.map((e) => e.location?.path)).toContain('predicates[0].name');
    expect(errs.map((e) => e.location?.path)).toContain('rules[0].formula');
  });

  it('makes an unsatisfiable obligation an error (it would deny every interaction)', () => {
    const errs = errorsOf(book([flag('a')], [rule('r', 'a & !a')]));
    expect(errs.map((e) => e.code)).toEqual(['policy_rule_always_violated']);
    expect(errorsOf(book([flag('a')], [rule('r', 'false')])).map((e) => e.code)).toEqual(['policy_rule_always_violated']);
  });

  it('warns about tautologies, baseline firing, unused and semantic predicates, and scope mismatches', () => {
    const w = warningsOf(
      book(
        [
          flag('a'),
          flag('b'),
          flag('unused'),
          { name: 'harmful', description: 'semantic' },
          flag('msg_only', { scope: 'message' }),
          flag('sticky_result', { scope: 'result', persistence: 'sticky' }),
        ],
        [
          rule('taut', 'a | !a'),
          rule('baseline', 'b'),
          rule('sem', '!harmful'),
          rule('scope', '!(msg_only & a)'),
          rule('trajectory', '!(sticky_result & a)'),
        ],
      ),
    );
    const byCode = (c: string) => w.filter((d) => d.code === c).map((d) => d.message);
    expect(byCode('policy_rule_never_violated')).toEqual([expect.stringMatching(/^rule taut: .* can never be violated/)]);
    expect(byCode('policy_rule_fires_on_baseline')).toEqual([expect.stringMatching(/^rule baseline: violated when every predicate is false/)]);
    expect(byCode('policy_unused_predicate')).toEqual(['predicate unused is not used by any rule']);
    expect(byCode('policy_semantic_predicate')).toEqual([expect.stringMatching(/^predicate harmful has no detector: it stays unknown until a model is configured/)]);
    // The sticky result predicate in a tool_call rule is a legitimate trajectory rule: no warning.
    expect(byCode('policy_scope_mismatch')).toEqual([expect.stringMatching(/^rule scope applies to tool_call but predicate msg_only has scope message/)]);
    expect(w.every((d) => d.severity === 'warning')).toBe(true);
  });

  it('hashes the canonical form: key order and defaults do not matter, meaning does', () => {
    const a = compileBook(sampleBook()).compiled.hash;
    const reordered = JSON.parse(JSON.stringify(sampleBook()), (_k, v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(compileBook(reordered).compiled.hash).toBe(a);
    const withDefaults = sampleBook();
    (withDefaults.rules[1] as Record<string, unknown>).mode = 'enforce';
    expect(compileBook(withDefaults).compiled.hash).toBe(a);
    const changed = sampleBook();
    changed.rules[0]!.severity = 'low';
    expect(compileBook(changed).compiled.hash).not.toBe(a);
  });
});
