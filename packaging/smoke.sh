#!/usr/bin/env bash
# The packed npm packages as a new user meets them: in an empty directory, with no bun on PATH,
# `npm i dist/npm/*.tgz`, then `npx ext --version`, `npx ext serve` with a ready file, the first-run flow with
# no flags (serve, extensions create, init, deploy, versions approve, installs add/show, the scaffold's test), a Node ESM script
# using startEmulator() that leaves no process behind, and a SIGKILLed script whose emulator is gone within
# 2 s. Also: installing never changes a file in the checkout. Needs `npm run package` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/packaging/user-env.sh" smoke

checkout_state() { (cd "$root" && git status --porcelain --untracked-files=all -- . ':!dist' && find . -path ./node_modules -prune -o -path ./dist -prune -o -path ./.git -prune -o -type f -perm -u+x -print | sort); }
before="$(checkout_state)"

work="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || :; done; rm -rf "$work"; }
trap cleanup EXIT
cd "$work"
echo '{"name":"smoke","private":true,"type":"module"}' > package.json
npm install --no-audit --no-fund --loglevel=error "${tarballs[@]}"

# 1. The launcher finds the platform package's binary.
npx ext --version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]+(-dirty)?, bun [0-9.]+\)$'

# 2. `npx ext serve` serves; when the server stops (SIGTERM), npx ends with its exit code, 0.
npx ext serve --memory --port 0 --ready-file r.json >serve.log 2>&1 &
launcher=$!; pids+=("$launcher")
for _ in $(seq 1 200); do [ -s r.json ] && break; sleep 0.05; done
[ -s r.json ] || { cat serve.log; echo "smoke: npx ext serve did not become ready" >&2; exit 1; }
url=$(sed -E 's/.*"url":"([^"]+)".*/\1/' r.json)
server=$(sed -E 's/.*"pid":([0-9]+).*/\1/' r.json)
curl -fsS "$url/healthz" | grep -q '"ok"'
kill -TERM "$server"
wait "$launcher" || { echo "smoke: npx ext serve exited $? after SIGTERM" >&2; exit 1; }
# Gone, or a zombie waiting for its reaper.
gone() { for _ in $(seq 1 40); do kill -0 "$1" 2>/dev/null || return 0; [ "$(ps -o stat= -p "$1" 2>/dev/null | cut -c1)" = Z ] && return 0; sleep 0.05; done; return 1; }

# 2b. The first minute: `npx ext serve` on a new folder makes an account whose key works (in its ready file:
#     a log is not a terminal, so the banner prints no secret value); in another shell in the same folder
#     every command finds it (any port) and acts as its account; `ext init` makes a folder that `ext deploy`
#     submits, and its sample test passes with the Node helper.
mkdir first && cd first
npx ext serve --port 0 --ready-file ready.json >serve.log 2>&1 &
launcher=$!; pids+=("$launcher")
for _ in $(seq 1 200); do [ -s ready.json ] && break; sleep 0.05; done
key=$(sed -nE 's/.*"apiKeys":\[\{[^]]*"key":"([^"]+)".*/\1/p' ready.json 2>/dev/null)
[ -n "$key" ] || { cat serve.log; echo "smoke: npx ext serve gave no key in its ready file" >&2; exit 1; }
for _ in $(seq 1 200); do grep -q 'api key:' serve.log && break; sleep 0.05; done
if grep -qF "$key" serve.log; then echo "smoke: the key is in the server's log" >&2; exit 1; fi
url=$(sed -E 's/.*"url":"([^"]+)".*/\1/' .ext-data/server.json)
curl -fsS -H "Authorization: Bearer $key" "$url/developer/v1/extensions" | grep -q '"extensions"'
id=$(npx ext extensions create --name X --json | sed -E 's/.*"id":"([^"]+)".*/\1/')
npx ext init my-ext >/dev/null
vid=$(npx ext deploy my-ext --extension "$id" --version 1.0.0 --json | sed -E 's/.*"versionId":"([^"]+)".*/\1/')
npx ext versions approve "$vid" --json | grep -q '"status":"approved"'
npx ext installs add --extension "$id" --count 2 --json >/dev/null
npx ext installs show --extension "$id" --json | grep -q '"active":2'
kill -TERM "$(sed -E 's/.*"pid":([0-9]+).*/\1/' .ext-data/server.json)"
wait "$launcher" || { echo "smoke: npx ext serve exited $? after SIGTERM" >&2; exit 1; }
(cd my-ext && npm install --no-audit --no-fund --loglevel=error "${tarballs[@]}" && npm test >test.log 2>&1) ||
  { cat my-ext/test.log; echo "smoke: the test ext init wrote does not pass" >&2; exit 1; }
cd "$work"

# 3. startEmulator() from plain Node: create and list an extension, stop, nothing left running.
cat > use.mjs <<'JS'
import { startEmulator } from "ext-emulator";
const emu = await startEmulator();
const headers = { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" };
const created = await fetch(`${emu.baseUrl}/extensions`, { method: "POST", headers, body: JSON.stringify({ name: "Smoke" }) });
if (created.status !== 201) throw new Error(`create: ${created.status}`);
const { extensions } = await (await fetch(`${emu.baseUrl}/extensions`, { headers })).json();
if (extensions.length !== 1 || extensions[0].name !== "Smoke") throw new Error(`list: ${JSON.stringify(extensions)}`);
await emu.stop();
console.log(emu.pid);
JS
server=$(node use.mjs)
gone "$server" || { echo "smoke: the emulator of a stopped startEmulator() is still running" >&2; exit 1; }

# 4. SIGKILL of a script holding an emulator: no ext process 2 s later.
cat > hold.mjs <<'JS'
import { startEmulator } from "ext-emulator";
const emu = await startEmulator();
console.log(emu.pid);
setInterval(() => {}, 60_000);
JS
node hold.mjs > hold.pid &
holder=$!; pids+=("$holder")
for _ in $(seq 1 200); do [ -s hold.pid ] && break; sleep 0.05; done
server=$(cat hold.pid); pids+=("$server")
kill -0 "$server"
{ kill -KILL "$holder" && wait "$holder"; } 2>/dev/null || :
gone "$server" || { echo "smoke: the emulator outlived its SIGKILLed parent by 2 s" >&2; exit 1; }

# 5. The checkout is as it was.
[ "$before" = "$(checkout_state)" ] || { echo "smoke: installing changed files in the checkout" >&2; exit 1; }
echo "smoke: packed packages OK"
