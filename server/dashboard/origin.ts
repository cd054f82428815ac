/**
 * The dashboard lives on an origin of its own run: `http://<label>.localhost:<port>`, the label drawn at random by
 * each start (common/dashboard-links.ts). Why: `http://127.0.0.1:<port>` is an origin any local user can serve
 * while this server is down (before its first start, during a restart). A page served there then — a stale tab
 * reloaded, a bookmark — can register a service worker that outlives the restart in the owner's browser and
 * reads every later request to that origin, the login's code and the session included. No one can serve a page
 * on an origin whose name they cannot know before this server starts, and an old label names a run that is
 * over, so its origin is refused here.
 *
 * The dashboard's page, its scripts and its login answer only when the request is addressed to this run's name;
 * addressed any other way (127.0.0.1, localhost, an old label) the same paths get NOT_HERE_PAGE: no script, no
 * login, and `Clear-Site-Data: "storage"`, which removes from the browser whatever that origin keeps (a service
 * worker registered there included).
 */
import { dashboardHostname } from "../../common/dashboard-links";
import { hostnameOf } from "../http/host-check";
import { requestTarget } from "../http/request-url";

const NOT_HERE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<title>ext dashboard: not at this address</title>
</head>
<body>
<main>
<h1>The dashboard is not at this address</h1>
<p>Each start of the emulator serves its dashboard at an address of its own. To open it, run <code>ext dashboard</code> in the server's folder (or with <code>--target</code>): it logs this browser in at the current address.</p>
</main>
</body>
</html>
`;

/** What a dashboard path addressed by another name answers: a page without script, and this origin's storage cleared. */
export function notHereAnswer(): Response {
  return new Response(NOT_HERE_PAGE, {
    status: 404,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      "clear-site-data": '"storage"',
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
      "referrer-policy": "no-referrer",
    },
  });
}

/**
 * A login code seen in a URL is revoked wherever the URL was addressed (it may be in a log or a history now),
 * this run's origin or not.
 */
export function revokeCodesInUrl(url: string, revokeIfCode: (text: string) => boolean): void {
  const query = url.indexOf("?");
  if (query >= 0) for (const [, value] of new URLSearchParams(url.slice(query + 1))) revokeIfCode(value);
}

/** Whether `request` is addressed to this run's dashboard name (any port: a port mapping may change it). */
export function addressedToDashboard(request: Request, label: string): boolean {
  const target = requestTarget(request, request.url);
  return "host" in target && hostnameOf(target.host).toLowerCase() === dashboardHostname(label);
}
