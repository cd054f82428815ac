/**
 * A 204 with no body at all. Built as a bare Response on purpose: Elysia's string form `status("No Content")`
 * still sends a body (elysia PR #1833).
 */
export const noContent = () => new Response(null, { status: 204 });
