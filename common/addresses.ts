/**
 * Where an emulator is found, as the server and the tools both name it: its default address and data directory,
 * the prefixes of its URL space, and which host names and addresses mean this machine only (the bind address and
 * the Host check both ask).
 */

export const DEFAULT_HOST = "127.0.0.1";
export const DEFAULT_PORT = 4780;
export const DEFAULT_DATA_DIR = "./.ext-data";
export const API_PREFIX = "/developer/v1";
/** The literal path the spec gives the deploy tool for the limits endpoint. */
export const DEPLOY_LIMITS_PREFIX = "/v1/developer";
export const CONTROL_PREFIX = "/_emulator";

const IPV4_LOOPBACK = /^127\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)\.(25[0-5]|2[0-4]\d|1?\d?\d)$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

/**
 * Whether `text` is an IP address as written by a listener: dotted-quad IPv4, or IPv6 as the URL parser reads it
 * between brackets (no zone). node:net's isIP says the same but brings Node's stream machinery into the server's start.
 */
export function isIpAddress(text: string): boolean {
  return IPV4.test(text) || (/^[\d.:a-f]+$/i.test(text) && text.includes(":") && URL.canParse(`http://[${text}]/`));
}

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

/** Whether a bind address is this machine only (the Host check then always runs). */
export function isLoopback(host: string): boolean {
  return host === "::1" || isLoopbackHostname(host);
}

/** The host part of a URL for a bound address: a wildcard bind is reached on loopback; IPv6 gets brackets. */
export function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::") return DEFAULT_HOST;
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
