#!/usr/bin/env bash
# The action's step: get `ext`, start it, and hand its address and key to the job through GITHUB_ENV (and
# GITHUB_OUTPUT). By default `npm install ext-emulator@VERSION` into EXT_INSTALL_DIR (the package picks this
# runner's executable, as in a project); with EXT_INSTALL=binary, this runner's platform package tarball
# (@ext-emulator/<os>-<cpu>) from the registry, checked against the sha512 the registry publishes for it.
# Inputs (environment): EXT_VERSION (default latest), EXT_INSTALL (npm | binary), EXT_REGISTRY (default
# https://registry.npmjs.org), EXT_INSTALL_DIR, EXT_SEED (default demo), EXT_PORT (default 4780), EXT_API_KEY
# (a plaintext key of the fixture; default the demo fixture's), RUNNER_OS and RUNNER_ARCH (set by GitHub).
set -euo pipefail
: "${EXT_INSTALL_DIR:?an install directory}" "${GITHUB_ENV:?GITHUB_ENV}"
version="${EXT_VERSION:-latest}"
registry="${EXT_REGISTRY:-https://registry.npmjs.org}"
registry="${registry%/}"
seed="${EXT_SEED:-demo}"
port="${EXT_PORT:-4780}"
mkdir -p "$EXT_INSTALL_DIR"
cd "$EXT_INSTALL_DIR"

case "${EXT_INSTALL:-npm}" in
  npm)
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$EXT_INSTALL_DIR" \
      --registry "$registry/" "ext-emulator@$version"
    ext="$EXT_INSTALL_DIR/node_modules/.bin/ext"
    ;;
  binary)
    case "${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}" in
      Linux-X64) platform=linux-x64 ;;
      Linux-ARM64) platform=linux-arm64 ;;
      macOS-X64) platform=darwin-x64 ;;
      macOS-ARM64) platform=darwin-arm64 ;;
      Windows-X64) platform=win32-x64 ;;
      *) echo "::error::no ext executable for ${RUNNER_OS:-?} ${RUNNER_ARCH:-?}" >&2; exit 1 ;;
    esac
    # The registry's document of that version: where its tarball is, and the tarball's sha512.
    curl -fsSL --retry 3 -o package.json.meta "$registry/@ext-emulator%2f$platform/$version"
    read -r tarball integrity < <(node -e '
      const { dist } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
      if (!dist || !dist.tarball || !/^sha512-/.test(dist.integrity || "")) process.exit(1);
      console.log(dist.tarball, dist.integrity);' package.json.meta) ||
      { echo "::error::the registry's document of @ext-emulator/$platform@$version has no tarball and sha512" >&2; exit 1; }
    curl -fsSL --retry 3 -o package.tgz "$tarball"
    node -e '
      const data = require("fs").readFileSync(process.argv[1]);
      const got = "sha512-" + require("crypto").createHash("sha512").update(data).digest("base64");
      process.exit(got === process.argv[2] ? 0 : 1);' package.tgz "$integrity" ||
      { echo "::error::the @ext-emulator/$platform tarball does not match the registry's sha512" >&2; exit 1; }
    rm -rf package && tar -xzf package.tgz package/bin
    ext="$EXT_INSTALL_DIR/package/bin/ext"
    [ "$platform" != win32-x64 ] || ext="$ext.exe"
    chmod +x "$ext"
    ;;
  *) echo "::error::install must be npm or binary (got ${EXT_INSTALL})" >&2; exit 1 ;;
esac

rm -f ready.json
nohup "$ext" serve --memory --port "$port" --seed "$seed" --ready-file ready.json >ext.log 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  [ -s ready.json ] && break
  kill -0 "$pid" 2>/dev/null || { cat ext.log >&2; echo "::error::ext serve exited" >&2; exit 1; }
  sleep 0.1
done
[ -s ready.json ] || { cat ext.log >&2; echo "::error::ext serve was not ready in 10 s" >&2; exit 1; }

field() { sed -E "s/.*\"$1\":\"?([^\",}]+).*/\\1/" ready.json; }
base_url=$(field baseUrl)
admin_url=$(field adminUrl)
# The key the fixture gives (the demo fixture's by default); masked in the job's log unless it is the public demo key.
api_key="${EXT_API_KEY:-ext_demo_0123456789abcdefghijklmnopqrstuv}"
[ "$api_key" = ext_demo_0123456789abcdefghijklmnopqrstuv ] || echo "::add-mask::$api_key"
{
  echo "EXT_BASE_URL=$base_url"
  echo "EXT_ADMIN_URL=$admin_url"
  echo "EXT_API_KEY=$api_key"
  echo "EXT_PID=$pid"
} >>"$GITHUB_ENV"
[ -z "${GITHUB_OUTPUT:-}" ] || echo "base-url=$base_url" >>"$GITHUB_OUTPUT"
echo "ext is serving $base_url (pid $pid)"
