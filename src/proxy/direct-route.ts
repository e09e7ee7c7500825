import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Application, NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * One route of an express app run without express's router, for the one path every MCP request takes (/mcp). Per
 * request the router matched every layer's path, wrapped each handler, and, first, gave the request and response
 * express's prototypes (`app.handle`): node's own HTTP code then reads and writes both through prototype chains it
 * was not optimised for, which cost as much as the router (bench/README.md, "The HTTP front end without express's
 * router"). Here the handlers run in order on Node's `req` and `res` as express would call them (a thrown error or a
 * rejected promise is passed to `next`), and express's methods (`res.status`, `res.json`, `req.path`, …) are given
 * to the request only when something needs them: `withExpress` before a handler that reads them, or always
 * (`eager`). Whatever leaves the ordinary path (a handler passing an error, `'route'` or `'router'` to `next`) goes
 * back to express at the point it left: `resumeInExpress` is the app's first middleware and hands the request on
 * with that value, and no earlier layer handles errors, so express's own error handlers and final handler answer
 * it as before. Not carried over: the router's tracing channel (`express.router.request`; nothing in QuadGuard
 * subscribes to it).
 */

const EXPRESS = Symbol('quadguard.express');
const RESUME = Symbol('quadguard.resume');

type Bare = IncomingMessage & { res?: ServerResponse; [RESUME]?: unknown };
type BareResponse = ServerResponse & { locals?: Record<string, unknown>; [EXPRESS]?: Application | undefined };

/** Gives a request that skipped the router express's request and response methods (a no-op on any other). */
export function withExpress(res: ServerResponse): void {
  const app = (res as BareResponse)[EXPRESS];
  if (app === undefined) return;
  (res as BareResponse)[EXPRESS] = undefined;
  expressOf(app, res.req, res);
}

/** What `app.handle` does to every request before its router, but the circular references (x-powered-by is off). */
function expressOf(app: Application, req: IncomingMessage, res: ServerResponse): void {
  const protos = app as unknown as { request: object; response: object };
  Object.setPrototypeOf(req, protos.request);
  Object.setPrototypeOf(res, protos.response);
}

/**
 * The app's first middleware, for `directRoute`: a request handed back with a value for `next` continues in express
 * with it; every other request passes.
 */
export function resumeInExpress(req: Request, _res: Response, next: NextFunction): void {
  const bare = req as Bare;
  if (!(RESUME in bare)) return next();
  const value = bare[RESUME];
  delete bare[RESUME];
  next(value);
}

/** Answers a request and returns true if its URL is the route's path exactly; false leaves it to the app. */
export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * `handlers` as `app.use(handlers[0]); app.all(path, ...handlers.slice(1))` run them for a request whose URL is
 * exactly `path`, in an app whose first middleware is `resumeInExpress`, with no error handler before the route and
 * no later layer that answers `path`. `eager`: give every request express's methods at once (a handler reads them
 * on its ordinary path).
 */
export function directRoute(app: Application, path: string, handlers: readonly RequestHandler[], eager: boolean): DirectRoute {
  return function route(req, res) {
    if (req.url !== path) return false;
    const bare = req as Bare;
    const out = res as BareResponse;
    // As app.handle: the circular reference (Node sets res.req itself) and the locals.
    bare.res = res;
    out.locals ??= Object.create(null) as Record<string, unknown>;
    if (eager) expressOf(app, req, res);
    else out[EXPRESS] = app;
    let k = 0;
    // Back to express: from the route's first handler (a router-level middleware) 'route' goes on to the route,
    // anything else leaves; past the last handler, nothing else answers the path, so the final handler does.
    const resume = (value: unknown) => {
      withExpress(res);
      bare[RESUME] = value;
      app(req as Request, res as Response);
    };
    const next: NextFunction = (value?: unknown) => {
      if (value && !(value === 'route' && k === 1)) return resume(value === 'route' ? 'router' : value);
      const handler = handlers[k++];
      if (handler === undefined) return resume('router');
      try {
        const ret: unknown = handler(req as Request, res as Response, next);
        if (isPromise(ret)) ret.then(undefined, (error: unknown) => next(error || new Error('Rejected promise')));
      } catch (err) {
        next(err);
      }
    };
    next();
    return true;
  };
}

function isPromise(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}
