#!/usr/bin/env bash
# Smoke test of the compiled binary: from an empty directory with no node_modules, start it on a free port
# with the embedded demo fixture... then health, an authenticated list, the docs UI with no CDN, a clean stop.
set -euo pipefail
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
cd "$work"
"$bin" --version
"$bin" serve --memory --port 0 --seed "$OLDPWD/fixtures/demo.json" --ready-file "$work/ready.json" >"$work/out.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ -s "$work/ready.json" ] && break; sleep 0.1; done
[ -s "$work/ready.json" ] || { cat "$work/out.log"; echo "smoke: emulator did not become ready"; exit 1; }
url=$(sed -E 's/.*"url":"([^"]+)".*/\1/' "$work/ready.json")
key=$(sed -nE 's/.*"key": *"([^"]+)".*/\1/p' "$OLDPWD/fixtures/demo.json" | head -1)
curl -fsS "$url/healthz" | grep -q '"ok"'
curl -fsS -H "Authorization: Bearer $key" "$url/developer/v1/extensions" | grep -q '"extensions"'
curl -fsS "$url/docs" | grep -q '/docs/scalar.js'
if curl -fsS "$url/docs" | grep -q 'cdn.jsdelivr'; then echo "smoke: docs page references a CDN"; exit 1; fi
curl -fsS "$url/openapi.json" | grep -q '"openapi"'
# The dashboard: its page and the script it names, both from the binary, at this run's own name only (the ready
# file's dashboardUrl, http://<label>.localhost:PORT, asked for here with that Host); any other name gets a page
# without script.
dash_host=$(sed -E 's/.*"dashboardUrl":"http:\/\/([^"]+)".*/\1/' "$work/ready.json")
script=$(curl -fsS -H "Host: $dash_host" "$url/" | sed -nE 's/.*src="(\/ui\/[^"]+\.js)".*/\1/p')
[ -n "$script" ] || { echo "smoke: the dashboard page names no script"; exit 1; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$url/")" = 404 ] || { echo "smoke: the dashboard answered on 127.0.0.1"; exit 1; }
# To a file first: grep -q stops reading at the first match, and curl would fail writing the rest.
curl -fsS -H "Host: $dash_host" "$url$script" -o "$work/dashboard.js"
grep -q 'dashboard-key' "$work/dashboard.js"
kill -TERM "$pid"
wait "$pid"
# exec: the embedded demo fixture (no file), the command reaches it, and ext exits with the command's code.
set +e
"$bin" exec -- sh -c 'curl -fsS -H "Authorization: Bearer $EXT_API_KEY" "$EXT_BASE_URL/extensions" | grep -q extensions && exit 3'
rc=$?
set -e
[ "$rc" -eq 3 ] || { echo "smoke: ext exec exited $rc, expected 3"; exit 1; }
echo "smoke: compiled binary OK"
