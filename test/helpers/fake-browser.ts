/**
 * A stand-in browser for `ext dashboard` (named in BROWSER): given the login page's `file:` URL, it posts the
 * page's form as a browser does (`Origin: null`, urlencoded), unless FAKE_BROWSER_POST=0, and records what it was
 * given and what it found — its command line, the page, the page's and its folder's modes, the answer — as one
 * JSON line in FAKE_BROWSER_LOG. The line comes after the answer, so it can come after `ext dashboard` has exited:
 * a test waits for it. With FAKE_BROWSER_GO set, it waits for that file to exist first (a test holds it open
 * while it looks at the machine).
 */
import { appendFileSync, existsSync, readFileSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const argv = process.argv.slice(2);
const log = process.env.FAKE_BROWSER_LOG!;
const go = process.env.FAKE_BROWSER_GO;
if (go) while (!existsSync(go)) await Bun.sleep(20);
const path = fileURLToPath(argv.at(-1)!);
const html = readFileSync(path, "utf8");
const action = /<form id="login" method="post" action="([^"]+)">/.exec(html)?.[1];
const code = /<input type="hidden" name="code" value="([^"]+)">/.exec(html)?.[1];
// Before the post: once the code is used, `ext dashboard` removes the page and its folder.
const fileMode = statSync(path).mode & 0o777;
const dirMode = statSync(dirname(path)).mode & 0o777;
let status: number | null = null;
let location: string | null = null;
if (process.env.FAKE_BROWSER_POST !== "0" && action && code) {
  const res = await fetch(action, {
    method: "POST",
    headers: { origin: "null", "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ code }).toString(),
    redirect: "manual",
  });
  status = res.status;
  location = res.headers.get("location");
}
const record = {
  argv,
  path,
  html,
  code,
  fileMode,
  dirMode,
  extVars: Object.keys(process.env).filter((name) => name.startsWith("EXT_")),
  status,
  location,
};
appendFileSync(log, `${JSON.stringify(record)}\n`);
