#!/usr/bin/env bash
# The action's step: download `ext` for this runner from EXT_RELEASE_URL, check it against the release's
# SHA256SUMS, start it, and hand its address and key to the job through GITHUB_ENV (and GITHUB_OUTPUT).
# Inputs (environment): EXT_RELEASE_URL, EXT_INSTALL_DIR, EXT_SEED (default demo), EXT_PORT (default 4780),
# EXT_API_KEY (a plaintext key of the fixture; default the demo fixture's),
# RUNNER_OS and RUNNER_ARCH (set by GitHub).
set -euo pipefail
: "${EXT_RELEASE_URL:?the release URL}" "${EXT_INSTALL_DIR:?an install directory}" "${GITHUB_ENV:?GITHUB_ENV}"
seed="${EXT_SEED:-demo}"
port="${EXT_PORT:-4780}"

case "${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}" in
  Linux-X64) file=ext-linux-x64 ;;
  Linux-ARM64) file=ext-linux-arm64 ;;
  macOS-X64) file=ext-darwin-x64 ;;
  macOS-ARM64) file=ext-darwin-arm64 ;;
  Windows-X64) file=ext-windows-x64.exe ;;
  *) echo "::error::no ext binary for ${RUNNER_OS:-?} ${RUNNER_ARCH:-?}" >&2; exit 1 ;;
esac

mkdir -p "$EXT_INSTALL_DIR"
cd "$EXT_INSTALL_DIR"
curl -fsSL --retry 3 -o "$file" "$EXT_RELEASE_URL/$file"
curl -fsSL --retry 3 -o SHA256SUMS "$EXT_RELEASE_URL/SHA256SUMS"
grep -q " $file\$" SHA256SUMS || { echo "::error::SHA256SUMS has no line for $file" >&2; exit 1; }
if command -v sha256sum >/dev/null; then sum=(sha256sum); else sum=(shasum -a 256); fi
"${sum[@]}" -c --ignore-missing SHA256SUMS || { echo "::error::$file does not match SHA256SUMS" >&2; exit 1; }
chmod +x "$file"

rm -f ready.json
nohup "./$file" serve --memory --port "$port" --seed "$seed" --ready-file ready.json >ext.log 2>&1 &
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
