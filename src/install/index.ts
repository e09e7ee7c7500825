/**
 * Registration in MCP hosts: `quadguard init`, `install` and `uninstall` (issue #7).
 *
 * Per-client choices:
 * - Claude Desktop (`mcpServers`, plain JSON, stdio only) and Claude Code (`.mcp.json` / top-level `mcpServers` of
 *   `~/.claude.json`, plain JSON): comments or trailing commas are refused with their line, never dropped.
 * - Cursor (`mcpServers`) and VS Code (`servers`, `type` kept): JSONC; comments and trailing commas are kept.
 * - Every client: only the changed entries' value spans are rewritten (the rest of the file stays byte-identical),
 *   and originals go to a sidecar `<file>.quadguard.json` rather than a marker key, because hosts that validate
 *   their entries could reject an unknown key. Without the sidecar, uninstall rebuilds the entry from `wrap … --`.
 */
export { CLIENTS, ClientNameSchema, ScopeSchema, locateConfig, type ClientName, type ClientSpec, type Environment, type Scope } from './clients.js';
export { classifyEntry, serverKeyFor, unwrapEntry, wrapEntry, type EntryKind, type Launcher } from './entry.js';
export { InstallError } from './errors.js';
export { initProject, starterConfig, INIT_AGENT, INIT_CONFIG, INIT_POLICY_DIR, INIT_TOKEN_FILE, type InitReport } from './init.js';
export { installClient, type InstallOptions } from './install.js';
export { parseJson, type JsonNode, type ParsedJson } from './jsonc.js';
export { CLI_PATH, DEFAULT_POLICY, type RegisterOptions, type RegisterReport, type Selection } from './options.js';
export { sidecarPath } from './sidecar.js';
export { uninstallClient } from './uninstall.js';
