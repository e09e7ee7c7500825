/**
 * Which session a server's request goes to (pure: no transport). A request while one session's calls are in
 * flight goes to that session, on its newest request; with several sessions in flight, or none in flight and
 * several connected, there is no safe answer and it is refused.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it } from 'vitest';
import type { ForwardExtra, Origin, SessionContext } from '../../src/proxy/context.js';
import type { Downstream } from '../../src/proxy/downstream.js';
import { targetOf } from '../../src/proxy/server-requests.js';
import { UpstreamRegistry } from '../../src/proxy/sessions.js';

const session = (id: string): SessionContext => ({ id, agent: 'a', profile: {}, authenticated: false });
const origin = (s: SessionContext, requestId: number): Origin => ({ session: s, extra: { requestId } as unknown as ForwardExtra });
const server = () => new Server({ name: 't', version: '0' }, { capabilities: { logging: {} } });
const downstream = (origins: Origin[]) => ({ key: 'srv', origins: () => origins }) as unknown as Downstream;

describe('targetOf', () => {
  it('picks the session whose requests are in flight, on its newest request', () => {
    const reg = new UpstreamRegistry();
    const a = session('a');
    const b = session('b');
    reg.add(server(), a);
    reg.add(server(), b);
    const t = targetOf(downstream([origin(a, 1), origin(a, 2)]), reg);
    expect(typeof t).toBe('object');
    if (typeof t === 'object') {
      expect(t.session.ctx).toBe(a);
      expect(t.origin?.extra.requestId).toBe(2);
    }
  });

  it('refuses when requests of two sessions are in flight', () => {
    const reg = new UpstreamRegistry();
    const a = session('a');
    const b = session('b');
    reg.add(server(), a);
    reg.add(server(), b);
    expect(targetOf(downstream([origin(a, 1), origin(b, 1)]), reg)).toMatch(/serving requests of 2 sessions at once/);
  });

  it('uses the only session when nothing is in flight, refuses with several or none', () => {
    const reg = new UpstreamRegistry();
    expect(targetOf(downstream([]), reg)).toMatch(/no client is connected/);
    const a = session('a');
    reg.add(server(), a);
    const t = targetOf(downstream([]), reg);
    expect(typeof t === 'object' && t.session.ctx === a && t.origin === undefined).toBe(true);
    reg.add(server(), session('b'));
    expect(targetOf(downstream([]), reg)).toMatch(/no request in flight and 2 clients are connected/);
  });

  it('ignores in-flight requests of sessions that have closed', () => {
    const reg = new UpstreamRegistry();
    const a = session('a');
    reg.add(server(), a);
    const gone = session('gone');
    const t = targetOf(downstream([origin(gone, 1), origin(a, 3)]), reg);
    expect(typeof t === 'object' && t.session.ctx === a).toBe(true);
  });
});

describe('UpstreamRegistry levels and subscriptions', () => {
  it('tells servers the most verbose level any session asked for', () => {
    const reg = new UpstreamRegistry();
    const a = session('a');
    const b = session('b');
    reg.add(server(), a);
    reg.add(server(), b);
    expect(reg.mostVerboseLevel()).toBeUndefined();
    reg.setLogLevel(a, 'warning');
    reg.setLogLevel(b, 'info');
    expect(reg.mostVerboseLevel()).toBe('info');
  });

  it('tracks subscriptions per session', () => {
    const reg = new UpstreamRegistry();
    const a = session('a');
    reg.add(server(), a);
    reg.subscribe(a, 'x+test://r', true);
    expect(reg.subscribed('x+test://r')).toBe(true);
    reg.subscribe(a, 'x+test://r', false);
    expect(reg.subscribed('x+test://r')).toBe(false);
  });
});
