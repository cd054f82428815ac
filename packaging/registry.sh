#!/usr/bin/env bash
# Install by name, proven: a real npm registry (Verdaccio, installed from npm into a temp folder) on
# 127.0.0.1, every package of dist/npm/ published to it, then `npm install ext-emulator` BY NAME in an empty
# project with no bun on PATH: npm itself must pick this machine's platform package, and only it. Then the
# three examples (examples/run.sh) install from the same registry. Other packages (the examples' test
# runners) are proxied to the registry npm is set up with. Needs `npm run package -- --all` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version=$(node -p 'require(process.argv[1]).version' "$root/package.json")
platform="$(node -p 'process.platform + "-" + process.arch')"
shopt -s nullglob
packages=("$root"/dist/npm/*.tgz)
[ "${#packages[@]}" -eq 6 ] || { echo "registry: dist/npm/ needs the six packages: run npm run package -- --all" >&2; exit 1; }

work="$(mktemp -d)"
registry_pid=""
cleanup() { [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || :; rm -rf "$work"; }
trap cleanup EXIT
upstream="$(npm config get registry)"

# Verdaccio 6.8 runs on Node 20 once node-fetch is held at 2.7.0.
mkdir "$work/verdaccio"
cat >"$work/verdaccio/package.json" <<'JSON'
{ "private": true, "dependencies": { "verdaccio": "6.8.0" }, "overrides": { "node-fetch": "2.7.0" } }
JSON
(cd "$work/verdaccio" && npm install --no-audit --no-fund --loglevel=error >/dev/null)
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
registry="http://127.0.0.1:$port/"
cat >"$work/verdaccio/config.yaml" <<YAML
storage: $work/verdaccio/storage
max_body_size: 300mb
uplinks:
  upstream:
    url: $upstream
packages:
  "ext-emulator":
    access: \$all
    publish: \$anonymous
  "@ext-emulator/*":
    access: \$all
    publish: \$anonymous
  "**":
    access: \$all
    proxy: upstream
log: { type: stdout, format: pretty, level: warn }
YAML
"$work/verdaccio/node_modules/.bin/verdaccio" --config "$work/verdaccio/config.yaml" --listen "127.0.0.1:$port" \
  >"$work/verdaccio.log" 2>&1 &
registry_pid=$!
for _ in $(seq 1 200); do curl -fsS "${registry}-/ping" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS "${registry}-/ping" >/dev/null || { cat "$work/verdaccio.log" >&2; echo "registry: Verdaccio did not start" >&2; exit 1; }

# Publishing needs a token of any value; it lives in a userconfig of this run only.
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=local-ci\n' "$registry" "$port" >"$work/npmrc"
for package in "${packages[@]}"; do
  npm publish "$package" --userconfig "$work/npmrc" --registry "$registry" --loglevel=error >/dev/null
  echo "registry: published $(basename "$package")"
done

# A user's empty project, plain Node (no bun on PATH), the package asked for by name.
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v 'node_modules/\.bin' | paste -sd: -)"
export PATH
if command -v bun >/dev/null; then echo "registry: bun is on PATH ($(command -v bun))" >&2; exit 1; fi
mkdir "$work/project"
cd "$work/project"
echo '{"name":"by-name","private":true}' >package.json
npm install --registry "$registry" --no-audit --no-fund --loglevel=error "ext-emulator@$version"
installed="$(ls node_modules/@ext-emulator)"
[ "$installed" = "$platform" ] || { echo "registry: node_modules/@ext-emulator holds \"$installed\", expected only $platform" >&2; exit 1; }
npx ext --version | grep -q "^$version "
echo "registry: ext-emulator@$version installed by name; npm picked @ext-emulator/$platform only"
# The container route from the package alone: its build context holds the very binary npm installed.
npx ext image "$work/image-context" >/dev/null
cmp "$work/image-context/rootfs/ext" "node_modules/@ext-emulator/$platform/bin/ext"
grep -q "^ARG VERSION=$version$" "$work/image-context/Dockerfile"
echo "registry: npx ext image wrote the build context of the installed binary"

EXT_REGISTRY="$registry" bash "$root/examples/run.sh"
