/** Registration in MCP hosts: `quadguard init`, `install` and `uninstall` (issue #7). */
export { CLIENTS, ClientNameSchema, ScopeSchema, locateConfig, type ClientName, type ClientSpec, type Environment, type Scope } from './clients.js';
export { classifyEntry, serverKeyFor, unwrapEntry, wrapEntry, type EntryKind, type Launcher } from './entry.js';
export { InstallError } from './errors.js';
export { initProject, starterConfig, INIT_CONFIG, INIT_POLICY_DIR, type InitReport } from './init.js';
export { installClient, type InstallOptions } from './install.js';
export { parseJson, type JsonNode, type ParsedJson } from './jsonc.js';
export { CLI_PATH, DEFAULT_POLICY, type RegisterOptions, type RegisterReport, type Selection } from './options.js';
export { sidecarPath } from './sidecar.js';
export { uninstallClient } from './uninstall.js';
