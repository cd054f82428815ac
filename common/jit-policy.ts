/**
 * The compiled binary starts with a JIT that is reluctant to compile (scripts/lib/compile.ts,
 * `--compile-jit-policy`): a start runs a burst of code once — modules, schemas, routes, statements — which a
 * normal JIT would compile for nothing, on the same few cores as the start itself. A process that goes on serving
 * calls this once it listens: soon after, its first answers (part of a start) made too, the JIT is back to its
 * normal policy and the request path tiers up as usual. Run from source (bun run, the tests) the policy is the
 * normal one already, and this changes nothing.
 */

/** Long enough for the first answers a waiting client asks for at once; short beside any real load. */
const START_BURST_MS = 500;

export function normalJitSoon(): void {
  setTimeout(() => Bun.unsafe.setJITPolicy(1), START_BURST_MS).unref();
}
