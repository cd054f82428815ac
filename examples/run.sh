#!/usr/bin/env bash
# Runs the three example projects (vitest, jest, node:test) the way a user would: each copied to a temp
# directory, its locked test runner and the packed tarballs from dist/npm/ installed (never this checkout), then
# `npm test`; then `ext init` inside it and its suite again, with the new folder's test in it; on plain Node
# with no `bun` on PATH. Needs `npm run package` first.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/packaging/user-env.sh" examples

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for example in "${@:-vitest jest node-test}"; do
  for name in $example; do
    echo "== examples/$name"
    cp -R "$root/examples/$name" "$work/$name"
    (
      cd "$work/$name"
      # The test runner as locked (package-lock.json), plus the packed packages, kept out of package.json and
      # the lockfile (their path is this machine's). Not `npm ci`: npm 11 leaves other platforms' optional
      # bindings of jest's resolver out of a lockfile it writes, then finds that lockfile out of sync.
      npm install --no-save --no-audit --no-fund --loglevel=error "${tarballs[@]}"
      # The package's types, as a TypeScript project sees them (where the example has a type check).
      npm run typecheck --if-present
      npm test
      # `ext init` inside the project: the sample test is written for the project's runner, so the project's
      # own suite still passes with the new folder in it (vitest and jest collect every *.test.* file).
      npx ext init sound-board | tee init.log
      grep -q "is a $(case "$name" in vitest) echo vitest ;; jest) echo jest ;; *) echo node:test ;; esac) test" init.log
      npm test
      [ "$name" != node-test ] || node --test sound-board/test/
    )
  done
done
echo "examples: all passed"
