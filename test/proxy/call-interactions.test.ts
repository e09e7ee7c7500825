import { describe, expect, it } from 'vitest';
import type { ContentBlock, Interaction } from '../../src/core/types.js';
import { silentLogger } from '../../src/core/log.js';
import { answeredCall, askedCall, callIdentity, checkedCall } from '../../src/proxy/call-interactions.js';
import { forwardOptions, type ForwardExtra, type SessionContext } from '../../src/proxy/context.js';
import { messageSideFields, requestSideFields, withMeta } from '../../src/proxy/side-fields.js';
import { prng } from '../prng.js';

/**
 * The tools/call interactions and forwarding options as the proxy built them before (object spreads, kept here as
 * the reference), against the key-by-key builders that replace them: the same keys in the same order, each holding
 * the very same value, on generated calls.
 */

const reference = {
  asked(session: SessionContext, route: { server: string; name: string } | undefined, name: string, args: Record<string, unknown>, sideFields: Record<string, unknown> | undefined) {
    const base = { agent: session.agent, session: session.id, profile: session.profile, server: route?.server, tool: route?.name ?? name };
    const asked = { ...base, kind: 'tool_call' as const, arguments: args, ...withMeta(sideFields) };
    return { base, asked };
  },
  checked(asked: Record<string, unknown>, pinnedArgs: Record<string, unknown> | undefined, roots: string[] | undefined, pathKeys: string[], credentialKeys: string[]) {
    return { ...asked, arguments: pinnedArgs ?? asked.arguments, ...(roots ? { roots } : {}), ...(pathKeys.length > 0 ? { pathKeys } : {}), ...(credentialKeys.length > 0 ? { credentialKeys } : {}) };
  },
  answered(base: object, inspected: ContentBlock[], sideFields: Record<string, unknown> | undefined) {
    return { ...base, kind: 'tool_result' as const, content: inspected, ...withMeta(sideFields) };
  },
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Same keys in the same order, and each value the same one (`Object.is`), not only an equal one. */
function expectSameObject(actual: object, expected: object): void {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const [k, v] of Object.entries(expected)) expect(Object.is((actual as Record<string, unknown>)[k], v), k).toBe(true);
}

function generatedCalls(count: number, seed: number) {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
  const words = ['notes.txt', 'a/b', '/etc/passwd', '', 'token', 'x'];
  const value = (depth: number): unknown => {
    const k = rnd(depth > 1 ? 5 : 7);
    if (k === 0) return pick(words);
    if (k === 1) return rnd(1000);
    if (k === 2) return rnd(2) === 0 ? null : true;
    if (k === 3) return undefined;
    if (k === 4) return 'text';
    if (k === 5) return Array.from({ length: rnd(3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: rnd(3) }, (_, i) => [`k${i}`, value(depth + 1)]));
  };
  const profiles = [{}, { role: 'nurse', age: 30 }, { team: ['a', 'b'] }];
  return Array.from({ length: count }, () => {
    const session: SessionContext = { id: `s${rnd(5)}`, agent: pick(['anonymous', 'nurse', 'bot']), profile: pick(profiles), authenticated: rnd(2) === 0 };
    const route = rnd(4) === 0 ? undefined : { server: pick(['ws', 'db']), name: pick(['read_file', 'query']) };
    const args = pick([undefined, null, 'text', [1], { path: pick(words) }, { path: 'notes.txt', opts: { deep: [value(1)] } }, value(0)]);
    const meta = pick([undefined, {}, { progressToken: 7 }, { progressToken: 'p', trace: 'abc' }, { 'x-note': value(1) }]) as Record<string, unknown> | undefined;
    const pinned = rnd(3) === 0 ? undefined : rnd(2) === 0 ? { path: '/real/notes.txt' } : undefined;
    const roots = pick([undefined, [], ['/srv/ws'], ['/srv/ws', '/tmp/box']]);
    const pathKeys = pick([[], ['path'], ['path', 'dest']]);
    const credentialKeys = pick([[], ['auth.value']]);
    const content: ContentBlock[] = [{ type: 'text', text: pick(words) }];
    const result = pick([{ content }, { content, isError: false }, { content, _meta: { progressToken: 1 } }, { content, _meta: { trace: 'x' }, extra: value(1) }, { content, structuredContent: { n: 1 }, more: undefined }]);
    return { session, route, name: route ? `${route.server}__${route.name}` : pick(['nope', 'ws__gone']), args, meta, pinned, roots, pathKeys, credentialKeys, content, result };
  });
}

describe('the tools/call interactions, built key by key', () => {
  it('are the objects the spreads built, on generated calls', () => {
    for (const c of generatedCalls(3000, 30)) {
      // The values both are built from, read once (each reading makes new objects).
      const args = isRecord(c.args) ? c.args : {};
      const callSide = requestSideFields(c.meta);
      const resultSide = messageSideFields(c.result, ['content', 'structuredContent', 'isError']);
      const ref = reference.asked(c.session, c.route, c.name, args, callSide);
      const who = callIdentity(c.session, c.route, c.name);
      const asked = askedCall(who, args, callSide);
      expectSameObject(who, ref.base);
      expectSameObject(asked, ref.asked);
      const checked = checkedCall(asked, c.pinned ?? asked.arguments, c.roots, c.pathKeys, c.credentialKeys);
      expectSameObject(checked, reference.checked(ref.asked, c.pinned, c.roots, c.pathKeys, c.credentialKeys));
      expectSameObject(answeredCall(who, c.content, resultSide), reference.answered(ref.base, c.content, resultSide));
    }
  });

  it('meet every key they can hold in the generated calls', () => {
    const seen = new Set<string>();
    for (const c of generatedCalls(3000, 31)) {
      const who = callIdentity(c.session, c.route, c.name);
      const asked = askedCall(who, isRecord(c.args) ? c.args : {}, requestSideFields(c.meta));
      const checked: Interaction = checkedCall(asked, c.pinned ?? asked.arguments, c.roots, c.pathKeys, c.credentialKeys);
      for (const k of Object.keys(checked)) seen.add(k);
    }
    expect([...seen].sort()).toEqual(['agent', 'arguments', 'credentialKeys', 'kind', 'meta', 'pathKeys', 'profile', 'roots', 'server', 'session', 'tool']);
  });
});

describe('forwardOptions, built key by key', () => {
  it('has the keys and values of the spread it replaces, with a session and without', () => {
    const extra = { signal: new AbortController().signal, sendNotification: async () => {} } as unknown as ForwardExtra;
    const session: SessionContext = { id: 's', agent: 'a', profile: {}, authenticated: false };
    for (const token of [undefined, 5, 'p']) {
      for (const s of [session, undefined]) {
        const opts = forwardOptions(token, extra, silentLogger(), s);
        const spread = { signal: opts.signal, resetTimeoutOnProgress: true, ...(s ? { origin: { session: s, extra } } : {}), ...(token === undefined ? {} : { onprogress: opts.onprogress }) };
        expect(Object.keys(opts)).toEqual(Object.keys(spread));
        expect(opts).toStrictEqual(spread);
        if (s) expect(opts.origin?.session).toBe(s);
        if (s) expect(opts.origin?.extra).toBe(extra);
      }
    }
  });
});
