/**
 * OpenTelemetry traces of `serve --http` (built CLI): with OTEL_EXPORTER_OTLP_ENDPOINT set, a guarded tool call
 * reaches an OTLP/HTTP receiver the test runs on 127.0.0.1 as spans for the receive, the guard (the call and the
 * result check), its stages and the forward, the decision id on the guard span, and no argument value or content
 * in any attribute. Without the variable nothing is exported.
 */
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttp } from '../../src/cli/demos/kit.js';
import { makeSandbox, ROOT, server, startHttpProxy, waitFor, writeConfig } from '../support/proxy-harness.js';

interface OtlpSpan { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: Array<{ key: string; value: Record<string, unknown> }> }
const TOKEN = 'writer-token-0123456789abcdef';

describe('OTLP/HTTP traces', () => {
  const sb = makeSandbox();
  let receiver: Server;
  let endpoint = '';
  const spans: OtlpSpan[] = [];
  const bodies: string[] = [];
  let cfg = '';

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        bodies.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        if (req.url === '/v1/traces') {
          const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
          for (const rs of doc.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    cfg = writeConfig(sb.dir, {
      servers: { ws: server('workspace', '--root', sb.workspace) },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
      agents: { writer: { token: { env: 'WRITER_TOKEN' } } },
    });
  }, 30_000);
  afterAll(async () => {
    await new Promise((r) => receiver?.close(r));
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('exports the spans of a guarded call with its decision id and no argument values', async () => {
    const proxy = await startHttpProxy(cfg, { WRITER_TOKEN: TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, ['--no-ui']);
    const client = await connectHttp(proxy.url, TOKEN, 'traces');
    try {
      const r = await client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } });
      expect(JSON.stringify(r)).toContain('hello notes');
      await waitFor(() => spans.some((s) => s.name === 'quadguard.forward') && spans.filter((s) => s.name === 'quadguard.guard').length >= 2, 15_000, `spans (${bodies.join('; ')})`);
    } finally {
      await client.close().catch(() => {});
      await proxy.stop();
    }
    const names = new Set(spans.map((s) => s.name));
    for (const n of ['quadguard.receive', 'quadguard.guard', 'quadguard.forward', 'quadguard.stage.tracking', 'quadguard.stage.referee', 'quadguard.stage.audit']) expect(names, [...names].join(', ')).toContain(n);
    const attr = (s: OtlpSpan, key: string) => s.attributes?.find((a) => a.key === key)?.value;
    const guards = spans.filter((s) => s.name === 'quadguard.guard');
    const kinds = guards.map((s) => attr(s, 'quadguard.kind')?.stringValue);
    expect(kinds).toEqual(expect.arrayContaining(['tool_call', 'tool_result']));
    const call = guards.find((s) => attr(s, 'quadguard.kind')?.stringValue === 'tool_call')!;
    expect(attr(call, 'quadguard.decision')?.stringValue).toBe('allow');
    expect(String(attr(call, 'quadguard.decision_id')?.stringValue)).toMatch(/^(\d+-[0-9a-f]+|j[0-9a-f]{12}\.[0-9a-z]+)$/);
    // The guard runs inside the receive span of its HTTP request, its stages inside the guard.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    expect(byId.get(call.parentSpanId ?? '')?.name).toBe('quadguard.receive');
    const tracking = spans.find((s) => s.name === 'quadguard.stage.tracking' && s.traceId === call.traceId);
    expect(byId.get(tracking?.parentSpanId ?? '')?.name).toBe('quadguard.guard');
    // No argument value, result text or token in any attribute.
    const all = JSON.stringify(spans.map((s) => s.attributes));
    expect(all).not.toMatch(/notes\.txt|hello notes|writer-token/);
  }, 60_000);

  it('exports nothing without the OTLP variables', async () => {
    const before = bodies.length;
    const proxy = await startHttpProxy(cfg, { WRITER_TOKEN: TOKEN }, ['--no-ui']);
    const client = await connectHttp(proxy.url, TOKEN, 'no-traces');
    await client.callTool({ name: 'ws__read_file', arguments: { path: 'notes.txt' } });
    await client.close();
    await proxy.stop();
    await new Promise((r) => setTimeout(r, 1000));
    expect(bodies.length).toBe(before);
    expect(proxy.stderr()).not.toMatch(/OpenTelemetry/);
  }, 60_000);
});
