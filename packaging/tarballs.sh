#!/usr/bin/env bash
# Prints the tarballs this machine installs from dist/npm/, one per line: the main package and this
# platform's package (`npm run package -- --all` also leaves the other platforms' there, which npm refuses
# to install on this machine).
set -euo pipefail
dir="$(cd "$(dirname "$0")/../dist/npm" 2>/dev/null && pwd)" || { echo "no dist/npm/; run npm run package first" >&2; exit 1; }
platform="$(node -p 'process.platform + "-" + process.arch')"
shopt -s nullglob
main=("$dir"/ext-emulator-[0-9]*.tgz)
native=("$dir"/ext-emulator-"$platform"-[0-9]*.tgz)
[ "${#main[@]}" -eq 1 ] && [ "${#native[@]}" -eq 1 ] || { echo "dist/npm/ needs one ext-emulator-VERSION.tgz and one ext-emulator-$platform-VERSION.tgz; run npm run package" >&2; exit 1; }
printf '%s\n' "${main[0]}" "${native[0]}"
