#!/usr/bin/env bash
# The image as a container runtime would run it, without one (this machine may not run containers): its
# config is read from the archive, its layers are unpacked into a root directory, and the entrypoint runs there
# under chroot as the image's user, in private mount and network namespaces with /proc mounted. Checks:
# /tmp's mode; `--version`; the default command serving /healthz and the developer API (demo key) on a
# non-loopback address, and the dashboard's path answering only its not-here page there; the control plane refusing a request without the admin token; the HEALTHCHECK command;
# nothing but the binary over 5 MB. Needs root (unshare, chroot) and `npm run image` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
version=$(node -p 'require(process.argv[1]).version' "$root/package.json")
archive="$root/dist/image/ext-$version-linux-x64.tar"
[ -f "$archive" ] || { echo "image check: no $archive (run npm run image)" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/archive" "$work/root"
tar -xf "$archive" -C "$work/archive"

# The config: what a runtime would take from the image.
node - "$work/archive" "$version" > "$work/env" <<'JS'
const [dir, version] = process.argv.slice(2);
const manifest = require(`${dir}/manifest.json`)[0];
const { config } = require(`${dir}/${manifest.Config}`);
const expect = (what, got, want) => {
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    console.error(`image check: ${what} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
    process.exit(1);
  }
};
expect("User", config.User, "10001:10001");
expect("Entrypoint", config.Entrypoint, ["/ext"]);
expect("Cmd", config.Cmd, ["serve"]);
expect("ExposedPorts", Object.keys(config.ExposedPorts ?? {}), ["4780/tcp"]);
expect("Healthcheck.Test", config.Healthcheck?.Test, ["CMD", "/ext", "health", "--url", "http://127.0.0.1:4780"]);
expect("version label", config.Labels?.["org.opencontainers.image.version"], version);
for (const label of ["revision", "source"]) {
  if (!config.Labels?.[`org.opencontainers.image.${label}`]) (console.error(`image check: no ${label} label`), process.exit(1));
}
for (const e of config.Env) console.log(e);
console.error(`image check: config ok (${manifest.Layers.length} layers)`);
for (const layer of manifest.Layers) console.error(`layer ${layer}`);
JS
node -e 'for (const l of require(process.argv[1])[0].Layers) console.log(l)' "$work/archive/manifest.json" |
  while read -r layer; do tar -xf "$work/archive/$layer" -C "$work/root"; done
mkdir -p "$work/root/proc"
# /tmp: root's and 1777 (from tmp.tar), for the image's user; nothing of the build context is writable by others.
[ "$(stat -c '%a %u:%g' "$work/root/tmp")" = "1777 0:0" ] ||
  { echo "image check: /tmp is $(stat -c '%a %u:%g' "$work/root/tmp"), expected 1777 0:0" >&2; exit 1; }

big=$(find "$work/root" -type f -size +5M ! -path "$work/root/ext" -printf '%P %s\n')
[ -z "$big" ] || { echo "image check: files over 5 MB besides the binary: $big" >&2; exit 1; }
echo "image check: root $(du -sh "$work/root" | cut -f1), binary $(du -h "$work/root/ext" | cut -f1)"

# Inside: a private network with a non-loopback address (198.18.0.1, a benchmarking range) on lo, /proc,
# then the entrypoint with the image's environment and nothing else. A private PID namespace too: when the
# script ends, the kernel ends every process it started, servers included.
cat > "$work/inside.sh" <<'SH'
set -euo pipefail
root=$1 envfile=$2
ip link set lo up
ip addr add 198.18.0.1/32 dev lo
mount -t proc proc "$root/proc"
# An array, not a function, so that `"${as_image[@]}" /ext serve &` is the server itself (env and chroot exec
# it): $! is its pid, and `kill $!` stops it rather than a subshell that leaves it running.
as_image=(env -i $(cat "$envfile") chroot --userspec=10001:10001 "$root")
in_image() { "${as_image[@]}" "$@"; }
in_image /ext --version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+ \(commit '
"${as_image[@]}" /ext serve >"$root/../serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || :' EXIT
# Addressed as other containers address it (the name `ext`, which EXT_ALLOWED_HOSTS allows).
for _ in $(seq 1 100); do curl -fsS -H 'Host: ext:4780' http://198.18.0.1:4780/healthz >/dev/null 2>&1 && break; sleep 0.1; done
curl -fsS -H 'Host: ext:4780' http://198.18.0.1:4780/healthz | grep -q '"ok"'
in_image /ext health --url http://127.0.0.1:4780 >/dev/null
curl -fsS -H 'Host: ext:4780' -H 'Authorization: Bearer ext_demo_0123456789abcdefghijklmnopqrstuv' \
  http://198.18.0.1:4780/developer/v1/extensions | grep -q '"extensions"'
# Any other name is refused (DNS rebinding), even with a valid key.
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer ext_demo_0123456789abcdefghijklmnopqrstuv' \
  http://198.18.0.1:4780/developer/v1/extensions)
[ "$code" = 403 ] || { echo "image check: a request addressed as 198.18.0.1 answered $code, not 403" >&2; exit 1; }
# The dashboard is served at this run's own name only (http://<label>.localhost:PORT, which `ext dashboard` learns
# with the admin token): addressed as `ext`, its path answers the page without script that says so.
page=$(curl -sS -w '\n%{http_code}' -H 'Host: ext:4780' http://198.18.0.1:4780/)
[ "${page##*$'\n'}" = 404 ] && grep -q 'ext dashboard: not at this address' <<<"$page" ||
  { echo "image check: / addressed as ext did not answer the dashboard's not-here page" >&2; exit 1; }
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: ext:4780' http://198.18.0.1:4780/_emulator/state)
[ "$code" = 401 ] || { echo "image check: the control plane answered $code without a token" >&2; exit 1; }
# The log is not a terminal: the generated token's line says how to have one, and no secret value is printed.
grep -q 'admin token:.*not printed: output is not a terminal' "$root/../serve.log" ||
  { echo "image check: the log does not say where the admin token is:" >&2; cat "$root/../serve.log" >&2; exit 1; }
if grep -Eq 'adm_|login\?token=|ext_demo_' "$root/../serve.log"; then
  echo "image check: a secret value in the log:" >&2; cat "$root/../serve.log" >&2; exit 1
fi
# In memory: nothing was written into /data.
[ -z "$(ls -A "$root/data")" ] || { echo "image check: /data is not empty without a volume" >&2; exit 1; }
kill $server; wait $server || :
# With a volume mounted at /data, the data is kept there.
mount -t tmpfs -o mode=0700,uid=10001,gid=10001 volume "$root/data"
"${as_image[@]}" /ext serve >"$root/../serve.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do in_image /ext health --url http://127.0.0.1:4780 >/dev/null 2>&1 && break; sleep 0.1; done
in_image /ext health --url http://127.0.0.1:4780 >/dev/null
# The one answering is this server (its banner says it listens; the first one is gone), and its data is in the volume.
for _ in $(seq 1 100); do grep -q 'listening on' "$root/../serve.log" && break; sleep 0.1; done
grep -q 'listening on' "$root/../serve.log" || { echo "image check: the server on the volume is not listening" >&2; exit 1; }
[ -f "$root/data/ext.sqlite" ] || { echo "image check: nothing was kept in a volume mounted at /data" >&2; exit 1; }
SH
unshare --net --mount --pid --fork bash "$work/inside.sh" "$work/root" "$work/env" ||
  { echo "image check: the server's log:" >&2; cat "$work/serve.log" >&2 || :; exit 1; }
echo "image check: passed"
