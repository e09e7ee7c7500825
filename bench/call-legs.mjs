/**
 * A probe `bench/http-drive.ts --legs` loads into the proxy it starts (`--import`, via NODE_OPTIONS) to split one
 * HTTP call's time in the proxy into its legs: the request's arrival → the tools/call written to the server's stdin
 * (the front end and the call's check), → the first bytes of the server's answer on its stdout (the server's round
 * trip, and whatever the proxy's event loop does meanwhile), → the answer's `res.end` (the result's check and the
 * front end), and from there → the next request (the rest of the turn, timers such as the audit's group commit).
 * For each leg: the median and mean wall time, the mean CPU time of the process (`process.cpuUsage`: every thread, so the
 * GC's helpers and workers count too), and the audit's group commits that began in it (how many, their mean wall time). Only POSTs are read (a session's GET stream stays open), and one at a time: a
 * POST that arrives while another is open spoils both (they are counted as overlapped), and one the proxy answers
 * without writing to a server (a denial, a notification) is not counted. On each SIGUSR2 it appends one JSON line with the figures since the
 * last signal to the file named by QG_CALL_LEGS, and starts again. Nothing of it is in the product.
 */
/* global process, performance */
import { ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { Server, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import { join } from 'node:path';

const out = process.env.QG_CALL_LEGS;
if (out) {
  /** The downstream servers' stdin (what the proxy writes) and stdout (what it reads). */
  const DOWN = Symbol('to a server');
  const UP = Symbol('from a server');
  const spawn = ChildProcess.prototype.spawn;
  ChildProcess.prototype.spawn = function (...args) {
    const r = spawn.apply(this, args);
    if (this.stdin) this.stdin[DOWN] = true;
    if (this.stdout) this.stdout[UP] = true;
    return r;
  };

  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const LEGS = ['toServer', 'server', 'toAnswer', 'afterAnswer'];
  let legs = { wall: LEGS.map(() => []), cpu: LEGS.map(() => []), overlapped: 0, commits: LEGS.map(() => []) };

  // The audit's group commits (the transaction whose function links journaled rows, src/store/audit.ts), each by the
  // leg it began in and its wall time: better-sqlite3 is loaded from node_modules, outside the bundle.
  const Database = createRequire(join(process.cwd(), 'package.json'))('better-sqlite3');
  const transaction = Database.prototype.transaction;
  Database.prototype.transaction = function (fn) {
    const tx = transaction.call(this, fn);
    if (!String(fn).includes('.link(')) return tx;
    const timed = (run) =>
      function (...args) {
        const leg = open === undefined ? 3 : open.points.length - 1;
        const start = performance.now();
        try {
          return run.apply(this, args);
        } finally {
          legs.commits[leg].push(performance.now() - start);
        }
      };
    const wrapped = timed(tx);
    for (const kind of ['deferred', 'immediate', 'exclusive']) Object.defineProperty(wrapped, kind, { value: timed(tx[kind]) });
    Object.defineProperty(wrapped, 'default', { value: wrapped });
    return wrapped;
  };
  /** The open call: its response and, per point reached, [wall ms, cpu ms]. */
  let open;
  /** The last answered call's end, to time the leg up to the next request. */
  let ended;

  const emitRequest = Server.prototype.emit;
  Server.prototype.emit = function (event, ...args) {
    // POSTs only: a session's GET stream stays open for its life.
    if (event === 'request' && args[0].method === 'POST') {
      const now = [performance.now(), cpuMs()];
      if (open) {
        legs.overlapped += open.spoiled ? 1 : 2;
        open.spoiled = true;
      } else {
        if (ended) {
          legs.wall[3].push(now[0] - ended[0]);
          legs.cpu[3].push(now[1] - ended[1]);
        }
        open = { res: args[1], points: [now], spoiled: false };
      }
      ended = undefined;
    }
    return emitRequest.call(this, event, ...args);
  };
  const write = Socket.prototype.write;
  Socket.prototype.write = function (...args) {
    if (this[DOWN] && open?.points.length === 1) open.points.push([performance.now(), cpuMs()]);
    return write.apply(this, args);
  };
  const emitSocket = Socket.prototype.emit;
  Socket.prototype.emit = function (event, ...args) {
    if (event === 'data' && this[UP] && open?.points.length === 2) open.points.push([performance.now(), cpuMs()]);
    return emitSocket.call(this, event, ...args);
  };
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (...args) {
    if (open?.res === this) {
      const now = [performance.now(), cpuMs()];
      if (!open.spoiled && open.points.length === 3) {
        open.points.push(now);
        for (let i = 0; i < 3; i++) {
          legs.wall[i].push(open.points[i + 1][0] - open.points[i][0]);
          legs.cpu[i].push(open.points[i + 1][1] - open.points[i][1]);
        }
        ended = now;
      }
      open = undefined;
    }
    return end.apply(this, args);
  };

  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length === 0 ? null : Math.round(s[s.length >> 1] * 1000);
  };
  const mean = (xs) => (xs.length === 0 ? null : Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 1000));
  process.on('SIGUSR2', () => {
    const line = { pid: process.pid, calls: legs.wall[0].length, overlapped: legs.overlapped, wallUs: {}, meanWallUs: {}, cpuUs: {}, commits: {} };
    LEGS.forEach((name, i) => {
      line.wallUs[name] = median(legs.wall[i]);
      line.meanWallUs[name] = mean(legs.wall[i]);
      line.cpuUs[name] = mean(legs.cpu[i]);
      line.commits[name] = { n: legs.commits[i].length, meanUs: mean(legs.commits[i]) };
    });
    appendFileSync(out, `${JSON.stringify(line)}\n`);
    legs = { wall: LEGS.map(() => []), cpu: LEGS.map(() => []), overlapped: 0, commits: LEGS.map(() => []) };
  });
}
