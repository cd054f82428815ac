/**
 * A stand-in browser for `ext dashboard` (named in BROWSER): given the login page's `file:` URL, it records what
 * it was given and what it found — its command line, the page, the page's and its folder's modes — as one JSON
 * line in FAKE_BROWSER_LOG, then posts the page's form as a browser does (`Origin: null`, urlencoded), unless
 * FAKE_BROWSER_POST=0. With FAKE_BROWSER_GO set, it waits for that file to exist first (a test holds it open
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
  fileMode: statSync(path).mode & 0o777,
  dirMode: statSync(dirname(path)).mode & 0o777,
  extVars: Object.keys(process.env).filter((name) => name.startsWith("EXT_")),
  status,
  location,
};
appendFileSync(log, `${JSON.stringify(record)}\n`);
