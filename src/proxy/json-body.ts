import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** A body-read failure, with the `status` and `type` body-parser gives the same failure (the error handler reads them). */
class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `express.json({ limit, type: () => true })` for the ordinary MCP POST, without body-parser's per-request machinery
 * (raw-body, on-finished, http-errors, an iconv decoder): a body sent as is (no Content-Encoding), as UTF-8 (no
 * parameters on its Content-Type) and with its length known is read here, with body-parser's answers: over the limit
 * 413 `entity.too.large`, not JSON or not an object or array 400 `entity.parse.failed`, an empty body `{}`, a leading
 * byte-order mark ignored, a request cut off 400 `request.aborted`. Anything else (a compressed body, a charset, a
 * chunked body) goes to `fallback`, body-parser itself.
 */
export function jsonBody(limit: number | string, fallback: RequestHandler): RequestHandler {
  const max = sizeOf(limit);
  return function jsonBody(req: Request, res: Response, next: NextFunction) {
    const type = req.headers['content-type'];
    const length = req.headers['content-length'];
    if (req.headers['content-encoding'] !== undefined || type?.includes(';') || length === undefined || req.headers['transfer-encoding'] !== undefined) {
      return fallback(req, res, next);
    }
    if (Number(length) > max) return drain(req, () => next(new BodyError(413, 'entity.too.large', 'request entity too large')));
    read(req, max, (err, body) => {
      if (err) return next(err);
      try {
        req.body = parse(body!);
      } catch (e) {
        return next(new BodyError(400, 'entity.parse.failed', (e as Error).message));
      }
      next();
    });
    return undefined;
  };
}

function read(req: IncomingMessage, max: number, done: (err: BodyError | undefined, body?: string) => void): void {
  const chunks: Buffer[] = [];
  let received = 0;
  let settled = false;
  const finish = (err: BodyError | undefined, body?: string) => {
    if (settled) return;
    settled = true;
    req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
    done(err, body);
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > max) {
      req.off('data', onData);
      chunks.length = 0;
      drain(req, () => finish(new BodyError(413, 'entity.too.large', 'request entity too large')));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (received > max) return;
    finish(undefined, (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received)).toString('utf8'));
  };
  const onError = () => finish(new BodyError(400, 'request.aborted', 'request aborted'));
  const onClose = () => {
    if (!req.complete) onError();
  };
  req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
}

/** Reads and drops what is left of a request, then calls `then` once (the answer goes when the client has sent it all). */
function drain(req: IncomingMessage, then: () => void): void {
  if (req.complete) return then();
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    then();
  };
  req.once('end', once).once('close', once);
  req.resume();
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 * 1024 };

/** `http.body_limit` in bytes: a number, or `<n>b|kb|mb` as body-parser reads it (the config schema allows no other). */
export function sizeOf(limit: number | string): number {
  if (typeof limit === 'number') return limit;
  const m = /^(\d+)(b|kb|mb)$/i.exec(limit);
  if (!m) throw new Error(`body limit must be a number of bytes or <n>b, <n>kb, <n>mb, not "${limit}"`);
  return Number(m[1]) * UNITS[m[2]!.toLowerCase()]!;
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);

/** body-parser's strict JSON: empty is `{}`; only an object or an array; a UTF-8 byte-order mark is not part of it. */
function parse(text: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (body.length === 0) return {};
  let i = 0;
  while (i < body.length && WHITESPACE.has(body[i]!)) i++;
  if (body[i] !== '{' && body[i] !== '[') throw new SyntaxError(`Unexpected token ${body[i] ?? 'end'} in JSON: only an object or an array`);
  return JSON.parse(body) as unknown;
}
