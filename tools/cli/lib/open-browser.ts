/**
 * Opens a page in the user's browser: `BROWSER` when set (as Python's webbrowser and many tools read it: a
 * command, `%s` standing for the page's URL, else the URL goes last; of a `:`-separated list, the first), else
 * the system's opener (`xdg-open`; `open` on macOS; `rundll32 url.dll,FileProtocolHandler` on Windows).
 *
 * Whatever is given here is on the launched process's command line, which every local user can read
 * (`/proc/PID/cmdline`, `ps`): callers give a `file:` URL of a private page, never a URL that carries a
 * credential. The browser gets this process's environment without its `EXT_*` variables (an admin token or a
 * key there is none of the browser's business). It runs in its own process group, so a Ctrl-C meant for `ext`
 * does not close it.
 */
import { spawn } from "node:child_process";
import { delimiter } from "node:path";

/** The command that opens `url`, by BROWSER or the platform. */
export function browserCommand(
  url: string,
  browser: string | undefined = process.env.BROWSER,
  platform: NodeJS.Platform = process.platform,
): string[] {
  const chosen = browser
    ?.split(delimiter)
    .map((entry) => entry.trim())
    .find((entry) => entry !== "");
  if (chosen) {
    const words = chosen.split(/\s+/);
    return words.includes("%s") ? words.map((w) => (w === "%s" ? url : w)) : [...words, url];
  }
  if (platform === "darwin") return ["open", url];
  if (platform === "win32") return ["rundll32", "url.dll,FileProtocolHandler", url];
  return ["xdg-open", url];
}

/** A launched opener or browser. */
export interface BrowserLaunch {
  command: string[];
  /**
   * Null once the process ended well; why not when it could not start or ended badly. Pending while it runs
   * (a browser named in BROWSER may run for as long as its window is open).
   */
  outcome: Promise<string | null>;
}

/** Starts the browser on `url` (an opener such as xdg-open ends once it has handed the page on). */
export function openInBrowser(url: string, command = browserCommand(url)): BrowserLaunch {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("EXT_")));
  const [program, ...args] = command;
  const outcome = new Promise<string | null>((resolve) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(program!, args, { stdio: "ignore", detached: true, env });
    } catch (e) {
      return resolve((e as Error).message);
    }
    child.on("error", (e: NodeJS.ErrnoException) =>
      resolve(e.code === "ENOENT" ? `${program} is not installed` : e.message),
    );
    child.on("exit", (code, signal) =>
      resolve(code === 0 ? null : `${program} ended with ${signal ?? `exit code ${code}`}`),
    );
    child.unref();
  });
  return { command, outcome };
}
