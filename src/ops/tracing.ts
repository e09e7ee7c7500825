import type { RequestHandler } from 'express';
import type { Decision, Guard, Interaction } from '../core/types.js';
import type { Logger } from '../core/log.js';
import type { Stage } from '../guard/stages/index.js';

/**
 * OpenTelemetry spans of a guarded request (docs/operations.md), exported over OTLP/HTTP only when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set; the `@opentelemetry/*` packages are
 * loaded only then, so start-up without them stays as fast as before. Attributes are bounded names and ids: the
 * interaction kind, server key, decision, rule ids, the audit id; never an argument value, a content or a token.
 */
export interface Tracing {
  /** Wraps each MCP HTTP request in a `quadguard.receive` span (the parent of everything it causes). */
  receive: RequestHandler;
  /** The guard, with a `quadguard.guard` span per check (the result check is one with kind `tool_result`). */
  guard(g: Guard): Guard;
  /** The pipeline's stages, each in its own span. */
  stages(stages: readonly Stage[]): Stage[];
  /** A finished forward to a downstream server, as a span ending now. */
  forwarded(server: string, method: string, outcome: string, seconds: number): void;
  shutdown(): Promise<void>;
}

/** Whether the standard OTLP variables ask for traces. */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT) && env.OTEL_TRACES_EXPORTER !== 'none' && env.OTEL_SDK_DISABLED !== 'true';
}

/** Starts tracing when the environment asks for it; undefined otherwise (nothing loaded). */
export async function startTracing(logger: Logger, version: string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  if (!tracingRequested(env)) return undefined;
  const [api, { BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { AsyncLocalStorageContextManager }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
  ]);
  // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT and _HEADERS itself.
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME ?? 'quadguard', 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter(), { scheduledDelayMillis: 500 })],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  const tracer = api.trace.getTracer('quadguard', version);
  const log = logger.child({ mod: 'tracing' });
  log.info('OpenTelemetry traces exported over OTLP/HTTP');
  const fail = (span: import('@opentelemetry/api').Span, err: unknown) => {
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error).name });
  };
  const decisionAttributes = (i: Interaction, d: Decision) => ({
    'quadguard.kind': i.kind,
    'quadguard.decision': d.decision,
    'quadguard.source': d.source,
    ...('server' in i && typeof i.server === 'string' ? { 'quadguard.server': i.server } : {}),
    ...(d.rules.length > 0 ? { 'quadguard.rules': d.rules.slice(0, 20) } : {}),
    ...(d.auditId ? { 'quadguard.decision_id': d.auditId } : {}),
  });
  return {
    receive(req, res, next) {
      const span = tracer.startSpan('quadguard.receive', { kind: api.SpanKind.SERVER, attributes: { 'http.request.method': req.method, 'url.path': req.path } });
      res.once('close', () => {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (res.statusCode >= 500) span.setStatus({ code: api.SpanStatusCode.ERROR });
        span.end();
      });
      api.context.with(api.trace.setSpan(api.context.active(), span), next);
    },
    guard(g) {
      return {
        check: (i, signal) =>
          tracer.startActiveSpan('quadguard.guard', { attributes: { 'quadguard.kind': i.kind } }, async (span) => {
            try {
              const d = await g.check(i, signal);
              span.setAttributes(decisionAttributes(i, d));
              return d;
            } catch (err) {
              fail(span, err);
              throw err;
            } finally {
              span.end();
            }
          }),
      };
    },
    stages(stages) {
      return stages.map((s) => ({
        ...s,
        run: (ctx, envG) =>
          tracer.startActiveSpan(`quadguard.stage.${s.name}`, async (span) => {
            try {
              return await s.run(ctx, envG);
            } catch (err) {
              fail(span, err);
              throw err;
            } finally {
              span.end();
            }
          }),
        ...(s.failClosed ? { failClosed: s.failClosed.bind(s) } : {}),
      }));
    },
    forwarded(server, method, outcome, seconds) {
      const end = Date.now();
      const span = tracer.startSpan('quadguard.forward', { kind: api.SpanKind.CLIENT, startTime: end - seconds * 1000, attributes: { 'quadguard.server': server, 'rpc.method': method, 'quadguard.outcome': outcome } });
      if (outcome !== 'ok') span.setStatus({ code: api.SpanStatusCode.ERROR });
      span.end(end);
    },
    async shutdown() {
      await provider.shutdown().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'flushing the last spans failed'));
    },
  };
}
