#!/usr/bin/env bash
# Checks `npm run release` output: each binary is the right executable format for its platform
# (`file`), and SHA256SUMS lists exactly them and verifies with `sha256sum -c`.
set -euo pipefail
cd "$(dirname "$0")/../dist/release"
expect() {
  local out
  out="$(file -b "$1")"
  case "$out" in $2) echo "release: $1: $out" ;; *) echo "release: $1 is \"$out\", expected $2" >&2; exit 1 ;; esac
}
expect ext-linux-x64 "ELF 64-bit LSB executable, x86-64*"
expect ext-linux-arm64 "ELF 64-bit LSB executable, ARM aarch64*"
expect ext-darwin-x64 "Mach-O 64-bit x86_64 executable*"
expect ext-darwin-arm64 "Mach-O 64-bit arm64 executable*"
expect ext-windows-x64.exe "PE32+ executable (console) x86-64*"
[ "$(awk '{print $2}' SHA256SUMS | sort | tr '\n' ' ')" = "ext-darwin-arm64 ext-darwin-x64 ext-linux-arm64 ext-linux-x64 ext-windows-x64.exe " ] || { echo "release: SHA256SUMS does not list the five binaries" >&2; exit 1; }
sha256sum -c SHA256SUMS
# The one this machine can run, when it is an x86-64 Linux.
if [ "$(uname -s)-$(uname -m)" = "Linux-x86_64" ]; then ./ext-linux-x64 --version; fi
