# Sourced (with `root` set to the checkout) by the scripts that use the packed packages as a user would:
# sets `tarballs` to the two this machine installs (or, with EXT_REGISTRY, to the package's name and that
# registry), and takes node_modules/.bin (where the project's own bun
# lives) off PATH, refusing to go on when a bun is still found: the packages must work on plain Node.
# $1 names the caller in the error line.
# With EXT_REGISTRY set, the packages come from that registry by name instead (packaging/registry.sh).
if [ -n "${EXT_REGISTRY:-}" ]; then
  tarballs=("ext-emulator@$(node -p 'require(process.argv[1]).version' "$root/package.json")" --registry "$EXT_REGISTRY")
else
  mapfile -t tarballs < <(bash "$root/packaging/tarballs.sh")
  [ "${#tarballs[@]}" -eq 2 ] || exit 1
fi
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v 'node_modules/\.bin' | paste -sd: -)"
export PATH
if command -v bun >/dev/null; then echo "$1: bun is on PATH ($(command -v bun)); the packages must work without it" >&2; exit 1; fi
