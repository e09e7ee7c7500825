import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

/**
 * A `fetch` for the SDK's HTTP client transports that gives every request an abort signal of its own.
 *
 * The SDK passes one long-lived signal (the transport's) to every request on a connection, and Node's fetch adds an
 * abort listener to that signal per request, removed only when the request is garbage-collected. A busy connection
 * to a remote server therefore piles up thousands of listeners: each new one walks the list, and past 1,500 Node
 * prints a `MaxListenersExceededWarning` ("possible memory leak") to stderr for every request, outside the logs.
 *
 * Here the transport's signal gets one listener, which aborts every request still open on it, so closing the
 * transport still cancels requests in flight and response bodies still being read (an SSE stream). A request is
 * open until its fetch fails or it has no body; one with a body stays open until the body is garbage-collected,
 * whoever reads it, so a body is never cut off while someone can still read it.
 */
export function perRequestSignalFetch(base: FetchLike = (url, init) => fetch(url, init)): FetchLike {
  return async (url, init) => {
    const shared = init?.signal;
    // No signal, or one already aborted (the base fetch rejects with its reason, as it would have): nothing to isolate.
    if (!shared || shared.aborted) return base(url, init);
    const own = new AbortController();
    const open = openRequests(shared);
    open.add(own);
    let response: Response;
    try {
      response = await base(url, { ...init, signal: own.signal });
    } catch (err) {
      open.delete(own);
      throw err;
    }
    if (response.body) bodiesGone.register(response.body, { open, own });
    else open.delete(own);
    return response;
  };
}

/** The requests still open on each shared signal (a signal no one holds is forgotten with its set). */
const openBySignal = new WeakMap<AbortSignal, Set<AbortController>>();

function openRequests(shared: AbortSignal): Set<AbortController> {
  let open = openBySignal.get(shared);
  if (!open) {
    const set = new Set<AbortController>();
    open = set;
    openBySignal.set(shared, set);
    shared.addEventListener(
      'abort',
      () => {
        for (const own of set) own.abort(shared.reason);
        set.clear();
      },
      { once: true },
    );
  }
  return open;
}

/** A request whose response body was garbage-collected is no longer open: no one can read the body. */
const bodiesGone = new FinalizationRegistry<{ open: Set<AbortController>; own: AbortController }>(({ open, own }) => open.delete(own));

/** How many requests are open on `shared` (tests). */
export function openRequestCount(shared: AbortSignal): number {
  return openBySignal.get(shared)?.size ?? 0;
}
