/** The live view: a token-protected local web page and SSE stream over the audit log, agents, pins and approvals. */
export { createLiveViewRouter, sseFrame, type LiveViewOptions, type LiveViewRouter } from './api.js';
export { hostCheck, newToken, requireToken } from './auth.js';
export { LiveFeed, type LiveEvent, type LiveFeedOptions } from './feed.js';
export { mountLiveView, startLiveView, type LiveViewServer } from './server.js';
