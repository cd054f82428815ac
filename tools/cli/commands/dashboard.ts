import { defineCommand } from "citty";
import { ApiCallError } from "../../../client";
import { LOGIN_CODE_TTL_TEXT, LOGIN_PATH } from "../../../common/dashboard-links";
import { printable } from "../../../common/text/printable";
import { errorJson } from "../../calls/api-error";
import { adminClient, call } from "../../calls/http";
import { UsageError } from "../../calls/usage-error";
import { dashboardOriginOf, type LoginPage, writeLoginPage } from "../lib/login-page";
import { loopbackRisk } from "../lib/loopback-holders";
import { openInBrowser } from "../lib/open-browser";
import { jsonArg, resolveServer, targetArgs } from "../lib/target";
import { EXIT, err, fail, out } from "../output";

const { target, "admin-token": adminToken } = targetArgs;

/** How often the command asks whether the page has logged the browser in. */
const POLL_MS = 500;

/**
 * `ext dashboard`: logs a browser in to the dashboard of the server found from this folder (verified first),
 * or of one named by --target with its admin token. It never puts a credential in a URL or on a command line:
 * it asks the control plane for a one-time code, writes a private page that posts it (tools/cli/lib/login-page.ts),
 * opens that page's file in the browser, and waits until the code is used, expires or is replaced — as long as
 * the code in the page works, and no longer — then removes the page. Ctrl-C removes it too.
 */
export default defineCommand({
  meta: {
    name: "dashboard",
    description: `Log a browser in to the dashboard: opens a private page that posts a one-time code (works once, within ${LOGIN_CODE_TTL_TEXT}), and waits until it has`,
  },
  args: {
    target,
    "admin-token": adminToken,
    browser: {
      type: "boolean",
      description:
        "Open the page in the browser (the default; env BROWSER, else the system's opener); --no-browser names the page to open by hand",
    },
    json: {
      ...jsonArg,
      description:
        "Print the API's answer ({id, code, loginUrl}) on stdout and open nothing: a script posts the code itself",
    },
  },
  async run({ args }) {
    const json = Boolean(args.json);
    let page: LoginPage | null = null;
    try {
      const server = await resolveServer(args);
      const admin = adminClient(server.endpoints, server.adminToken);
      const login = await call(() => admin.POST("/_emulator/dashboard-login"), { retries: 0 });
      const origin = dashboardOriginOf(login.loginUrl, server.endpoints.root);
      refuseSharedLoopback(new URL(origin));
      // For a script: the address on the port this command reached the server at (a port mapping may differ).
      if (json) return out(JSON.stringify({ ...login, loginUrl: `${origin}${LOGIN_PATH}` }));
      const opened = writeLoginPage(origin, login.code);
      page = opened;
      removeOnExit(opened);
      // A launcher that fails is said at once; the wait goes on, for the page opened by hand.
      if (args.browser !== false) void open(opened).then((why) => why && err(`${why}: ${openByHand(opened)}`));
      else err(openByHand(opened));
      const state = await waitForLogin(admin, login.id);
      page.remove();
      if (state === "used") return out(`logged in: the dashboard is at ${origin}/ (a new address each start)`);
      fail(ENDED[state]);
    } catch (e) {
      page?.remove();
      if (json && !(e instanceof UsageError)) out(JSON.stringify({ error: errorJson(e) }));
      throw e;
    }
  },
});

/**
 * The browser posts the code to whichever of 127.0.0.1 and [::1] answers at the port: both must be held by this
 * user or root (tools/cli/lib/loopback-holders.ts), or the code could go to another user.
 */
function refuseSharedLoopback(origin: URL): void {
  const port = Number(origin.port || 80);
  const risk = loopbackRisk(port);
  if (risk === null) return;
  throw new Error(
    `not logging in: ${risk}, and a browser sends the dashboard's login to whichever of 127.0.0.1 and [::1] answers at port ${port}. Hold both loopback addresses there (ext serve does; a forward must too: docker run -p ${port}:${port}, not -p 127.0.0.1:${port}:${port}; ssh -L localhost:${port}:…), or stop the program holding one`,
  );
}

function openByHand(page: LoginPage): string {
  return `open ${printable(page.url)} in a browser on this machine (it logs in once, within ${LOGIN_CODE_TTL_TEXT}); waiting for it (Ctrl-C to stop)`;
}

/** Opens the page; resolves with why the browser could not be opened, or null. */
function open(page: LoginPage): Promise<string | null> {
  const launch = openInBrowser(page.url);
  err(`opening the dashboard's login page in the browser (${printable(launch.command[0]!)}); waiting for it to log in`);
  return launch.outcome.then((why) => (why ? `could not open a browser (${printable(why)})` : null));
}

type Ended = "expired" | "revoked" | "replaced";

const ENDED: Record<Ended, string> = {
  expired: `the login page was not opened within ${LOGIN_CODE_TTL_TEXT}; its code has expired: run \`ext dashboard\` again`,
  revoked: "the login code was sent in a URL, so the server revoked it: run `ext dashboard` again",
  replaced: "a newer login (another `ext dashboard`) replaced this one, or the server restarted",
};

/** Asks the server what became of the code until it is no longer waiting. */
async function waitForLogin(admin: ReturnType<typeof adminClient>, id: string): Promise<"used" | Ended> {
  for (;;) {
    try {
      const { state } = await call(() => admin.GET("/_emulator/dashboard-login/{id}", { params: { path: { id } } }));
      if (state !== "waiting") return state;
    } catch (e) {
      if (e instanceof ApiCallError && e.status === 404) return "replaced";
      throw e;
    }
    await Bun.sleep(POLL_MS);
  }
}

/**
 * The page goes whatever ends the command: a signal (Ctrl-C, a closed terminal, a kill) removes it and exits
 * as the signal would; the exit handler covers every other way out.
 */
function removeOnExit(page: LoginPage): void {
  process.on("exit", () => page.remove());
  for (const [signal, code] of [
    ["SIGINT", EXIT.interrupted],
    ["SIGTERM", 143],
    ["SIGHUP", 129],
  ] as const)
    process.once(signal, () => {
      page.remove();
      err("stopped: the login page is removed");
      process.exit(code);
    });
}
