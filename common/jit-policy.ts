/**
 * The compiled binary starts with a JIT that is reluctant to compile (scripts/lib/compile.ts,
 * `--compile-jit-policy`): a start runs a burst of code once — modules, schemas, routes, statements — which a
 * normal JIT would compile for nothing, on the same few cores as the start itself. A process that goes on serving
 * calls this once it listens, before its first request, so the code first run from then on, its request path, tiers
 * up as usual. Not later: a function first run under the reluctant policy tiers up later than it would have (a
 * server that switched back half a second after listening answered its first seconds of load 5–15% slower). Run
 * from source (bun run, the tests) the policy is the normal one already, and this changes nothing.
 */
export function normalJit(): void {
  Bun.unsafe.setJITPolicy(1);
}
