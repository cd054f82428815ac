/**
 * The page `ext dashboard` opens in the browser instead of a login link (as Jupyter opens a redirect file): a
 * small HTML file that posts the one-time login code to the server in a form body, at once. So the code is in
 * no URL — not in the browser's command line (which every local user reads in /proc/PID/cmdline), not in its
 * history, not in a log; the browser's command line holds only the file's path. The file is the owner's alone:
 * written through the one private writer (0600) into a fresh folder made by mkdtemp (0700, a random name), so
 * another user can neither read it nor plant anything where it goes. Its own policy lets it run its one script
 * (by hash) and post only to the server; with scripts off it shows a button that does the same.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isLoopbackHostname } from "../../../common/addresses";
import { isDashboardHostname, LOGIN_CODE_FIELD, LOGIN_CODE_PATTERN, LOGIN_PATH } from "../../../common/dashboard-links";
import { writePrivateFile } from "../../../common/files/private-file";
import { UsageError } from "../../calls/usage-error";

const SUBMIT = "document.getElementById('login').submit();";
const SUBMIT_HASH = createHash("sha256").update(SUBMIT).digest("base64");

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * The page for the server at `origin` (`http://host:port`) and `code`. `form-action` names the server's origin
 * where CSP can: a bracketed IPv6 address is no host-source, so there the form's own action alone says where it goes.
 */
export function loginPageHtml(origin: string, code: string): string {
  const url = new URL(origin);
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`not a server origin: ${origin}`);
  if (!LOGIN_CODE_PATTERN.test(code)) throw new Error("the server's login code is not one (letters, digits, - and _)");
  const action = escapeHtml(`${url.origin}${LOGIN_PATH}`);
  const formAction = url.hostname.startsWith("[") ? "" : `; form-action ${url.origin}`;
  const policy = `default-src 'none'; script-src 'sha256-${SUBMIT_HASH}'; base-uri 'none'${formAction}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}">
<meta name="referrer" content="no-referrer">
<title>Logging in to the ext dashboard</title>
</head>
<body>
<form id="login" method="post" action="${action}">
<p>Logging in to the ext dashboard at ${escapeHtml(url.origin)}…</p>
<input type="hidden" name="${LOGIN_CODE_FIELD}" value="${escapeHtml(code)}">
<button type="submit">Log in</button>
</form>
<script>${SUBMIT}</script>
</body>
</html>
`;
}

/**
 * The origin the page posts to: the dashboard's, as the control plane named it in `loginUrl`
 * (`http://<label>.localhost:<port>/dashboard/login`), on the port this command reached the server at (a port
 * mapping may differ from the server's own). The server was proven before it was asked, but its answer is
 * still read as input: anything but a dashboard origin's shape is refused. A `*.localhost` name is loopback to
 * the browser, so the server must be reached on this machine's loopback too: a server elsewhere is not where
 * the browser would post the code.
 */
export function dashboardOriginOf(loginUrl: string, serverRoot: string): string {
  const login = URL.canParse(loginUrl) ? new URL(loginUrl) : null;
  if (
    login === null ||
    login.protocol !== "http:" ||
    !isDashboardHostname(login.hostname) ||
    login.pathname !== LOGIN_PATH ||
    login.search !== "" ||
    login.hash !== "" ||
    login.username !== "" ||
    login.password !== ""
  )
    throw new Error(
      "the server's loginUrl is not a dashboard login address (http://<label>.localhost:<port>/dashboard/login)",
    );
  const root = new URL(serverRoot);
  if (!isLoopbackHostname(root.hostname))
    throw new UsageError(
      `the dashboard is served at a *.localhost address, which a browser reaches on this machine's loopback only, and the server at ${root.origin} is not on loopback: reach it through a tunnel or port mapping to this machine's loopback holding both loopback addresses (ssh -L localhost:4780:127.0.0.1:4780 …) and use --target http://127.0.0.1:<port>`,
    );
  return `http://${login.hostname}:${root.port || (root.protocol === "https:" ? "443" : "80")}`;
}

export interface LoginPage {
  /** The file's path; its folder is the page's alone. */
  path: string;
  /** The file's `file:` URL, what the browser is given (it carries no credential). */
  url: string;
  /** Removes the page and its folder; safe to call more than once. */
  remove(): void;
}

/** Writes the page into a fresh private folder under the temporary directory (TMPDIR). */
export function writeLoginPage(origin: string, code: string, parent = tmpdir()): LoginPage {
  const html = loginPageHtml(origin, code);
  const dir = mkdtempSync(join(parent, "ext-dashboard-"));
  const path = join(dir, "login.html");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    writePrivateFile(path, html, { what: "the dashboard's login page" });
  } catch (e) {
    remove();
    throw e;
  }
  return { path, url: pathToFileURL(path).href, remove };
}
