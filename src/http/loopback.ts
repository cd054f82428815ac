/** Which host names and addresses mean this machine only: the bind address and the Host check both ask. */

const IPV4_LOOPBACK = /^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/;

/**
 * localhost and its subdomains (browsers resolve `*.localhost` to loopback themselves, RFC 6761, so no one
 * else's DNS can answer for them), 127.0.0.0/8 and [::1]; case-insensitive, as host names are.
 */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase();
  return (
    name === "localhost" ||
    (name.endsWith(".localhost") && name.length > ".localhost".length) ||
    name === "[::1]" ||
    IPV4_LOOPBACK.test(name)
  );
}
