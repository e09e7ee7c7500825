/** `quadguard replay`: re-decide a recorded trace under another policy book and report what changes. */
export { readRecorded, NOT_REPLAYABLE_TEXT, type RecordedItem, type NotReplayableReason } from './load.js';
export { replayTrace, secretRuleIds, type ReplayOptions } from './run.js';
export { renderReplayReport, ReplayReportSchema, ReplayEntrySchema, type ReplayReport, type ReplayEntry } from './report.js';
