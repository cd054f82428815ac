/**
 * Keys out of argv: a flag's value shows in `ps` to every local user. Every flag that takes a key or a token
 * has an environment variable (EXT_READ_ONLY_KEY included) and says, in its help, that the flag shows in
 * `ps`; the help's, the README's and the docs' examples pass keys and tokens in variables, never in flags, give
 * curl its Authorization header through stdin or a file, hand docker a token by name (`-e NAME`, never
 * `-e NAME=VALUE`), and keep ready files in a private folder.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ArgsDef } from "citty";
import { buildAndRun } from "../../tools/cli/commands/image";
import { EXAMPLES } from "../../tools/cli/lib/help";
import { main } from "../../tools/cli/main";
import { runCli } from "../helpers/run-cli";

const ROOT = resolve(import.meta.dir, "../..");
const SECRET_FLAG = /^(.*-)?(key|token)$/;

async function commandArgs(): Promise<{ command: string; flag: string; description: string }[]> {
  const subs = (await (typeof main.subCommands === "function" ? main.subCommands() : main.subCommands)) ?? {};
  const found: { command: string; flag: string; description: string }[] = [];
  for (const [name, load] of Object.entries(subs)) {
    const cmd = await (typeof load === "function" ? (load as () => Promise<{ args?: ArgsDef }>)() : load);
    const args = (await (typeof cmd.args === "function" ? (cmd.args as () => ArgsDef)() : cmd.args)) ?? {};
    for (const [flag, def] of Object.entries(args as ArgsDef))
      if (def.type === "string" && SECRET_FLAG.test(flag))
        found.push({ command: name, flag, description: def.description ?? "" });
  }
  return found;
}

describe("every flag that takes a key or a token", () => {
  test("names its environment variable and says the flag shows in ps", async () => {
    const flags = await commandArgs();
    // The check sees what it must: the key flags of deploy and conformance, the read-only key, serve's token.
    expect(flags.map((f) => `${f.command} --${f.flag}`)).toEqual(
      expect.arrayContaining([
        "deploy --api-key",
        "deploy --admin-token",
        "conformance --api-key",
        "conformance --read-only-key",
        "serve --admin-token",
      ]),
    );
    const missing = flags.filter((f) => !/\benv EXT_[A-Z_]+/.test(f.description) || !f.description.includes("`ps`"));
    expect(missing).toEqual([]);
  });

  test("EXT_READ_ONLY_KEY is the narrower key of ext conformance", async () => {
    const { code, stdout } = await runCli(
      ["conformance", "--target", "http://127.0.0.1:9/developer/v1", "--dry-run", "--json"],
      { env: { EXT_READ_ONLY_KEY: "ext_read_only_from_the_environment_0123" } },
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { results: { id: string; note?: string }[] };
    const forbidden = report.results.filter((r) => r.id.startsWith("auth.forbidden"));
    expect(forbidden.length).toBeGreaterThan(0);
    for (const r of forbidden) expect(r.note).toBe("dry run");
  });
});

/** A key or token flag given a value in an example: `--api-key "$X"` still puts the value in argv. */
const KEY_IN_FLAG = /--(api-key|admin-token|read-only-key)[ =]\S/;

describe("examples pass keys in variables", () => {
  test("no help example gives a key or a token as a flag", () => {
    const found = Object.entries(EXAMPLES).flatMap(([cmd, lines]) =>
      lines.filter((l) => KEY_IN_FLAG.test(l)).map((l) => `${cmd}: ${l}`),
    );
    expect(found).toEqual([]);
  });

  test("no code block of the README or the docs gives a key or a token as a flag", () => {
    expect(docLines().filter((l) => KEY_IN_FLAG.test(l))).toEqual([]);
  });

  // `curl -H "Authorization: Bearer $KEY"` puts the expanded key in curl's argv: the docs send the header
  // through standard input (`printf … | curl -H @-`) or a private header file (`-H @FILE`) instead.
  test("no code block or help example gives curl an Authorization header on its command line", () => {
    const helpLines = Object.values(EXAMPLES).flat();
    const found = [...docLines(), ...helpLines].filter((l) => CURL_AUTH_IN_ARGV.test(l));
    expect(found).toEqual([]);
    // The check sees what it must: the forms the docs use instead are there, and the old form is caught.
    expect(docLines().some((l) => l.includes("| curl -fsS -H @-"))).toBe(true);
    expect(CURL_AUTH_IN_ARGV.test(`curl -fsS -H "Authorization: Bearer $EXT_API_KEY" "$URL"`)).toBe(true);
    expect(CURL_AUTH_IN_ARGV.test(`printf 'Authorization: Bearer %s\\n' "$K" | curl -fsS -H @- "$URL"`)).toBe(false);
  });

  // A ready file holds the admin token and the keys: an example writes it into a folder of its own
  // (`dir=$(mktemp -d)`), never at a path another local user can predict and plant a link at.
  test("every ready file of an example is in a private temporary folder", () => {
    const helpLines = Object.values(EXAMPLES).flat();
    const found = [...docLines(), ...helpLines].filter(
      (l) => /--ready-file[ =]/.test(l) && !/--ready-file[ =]"\$dir\//.test(l),
    );
    expect(found).toEqual([]);
    expect(EXAMPLES.serve?.some((l) => l.includes("dir=$(mktemp -d); ext serve") && l.includes('"$dir/'))).toBe(true);
  });
});

const CURL_AUTH_IN_ARGV = /\bcurl\b.*(-H|--header)\s*["']?Authorization/i;

/**
 * `docker run -e EXT_ADMIN_TOKEN=VALUE` (or `--env`) puts the value in docker's argv for the container's
 * whole life; `-e EXT_ADMIN_TOKEN` alone (docker takes it from its environment) or `--env-file` does not.
 */
const SECRET_ENV_IN_ARGV = /(?:^|\s)(?:-e|--env)(?:\s+|=)["']?EXT_[A-Z_]*(?:TOKEN|KEY)=/;

describe("a container's secret variables are passed without their value", () => {
  test("no doc, example, packaging file, tool's text or help example gives docker -e NAME=VALUE for a key or token", () => {
    const found = [...everyDocText(), ...Object.values(EXAMPLES).flat()].filter((l) => SECRET_ENV_IN_ARGV.test(l));
    expect(found).toEqual([]);
    // The check sees what it must: the old form is caught, the one without a value is not.
    expect(SECRET_ENV_IN_ARGV.test("docker run --rm -e EXT_ADMIN_TOKEN=$(openssl rand -hex 32) ext")).toBe(true);
    expect(SECRET_ENV_IN_ARGV.test("podman run --env=EXT_API_KEY=ext_x img")).toBe(true);
    expect(SECRET_ENV_IN_ARGV.test("docker run --rm -e EXT_ADMIN_TOKEN ext")).toBe(false);
  });

  test("ext image's next steps export the token and pass it to docker run by name", () => {
    const lines = buildAndRun("ext-image", "ext-emulator:1.0.0");
    expect(lines.filter((l) => SECRET_ENV_IN_ARGV.test(l))).toEqual([]);
    expect(lines).toContain("  export EXT_ADMIN_TOKEN=$(openssl rand -hex 32)");
    expect(lines).toContain("  docker run --rm -p 4780:4780 -e EXT_ADMIN_TOKEN ext-emulator:1.0.0");
  });
});

/** Every line of the README, the docs, the examples, the packaging files and the tools' sources (what they print). */
function everyDocText(): string[] {
  const files = ["README.md"];
  for (const dir of ["docs", "examples", "packaging", "tools"])
    for (const f of readdirSync(join(ROOT, dir), { recursive: true }).map(String))
      if (
        /\.(md|ya?ml|sh|json|ts|mjs|cjs|js|toml)$|(^|\/)(Containerfile|Dockerfile)$/.test(f) &&
        !f.includes("node_modules")
      )
        files.push(join(dir, f));
  expect(files).toContain("packaging/image/Containerfile");
  expect(files).toContain("tools/cli/commands/image.ts");
  return files.flatMap((file) =>
    readFileSync(join(ROOT, file), "utf8")
      .split("\n")
      .map((line) => `${file}: ${line}`),
  );
}

/** Every line of every code block of the README, the docs and the CI recipes' README. */
function docLines(): string[] {
  const files = [
    "README.md",
    "examples/ci/README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  expect(files).toContain("docs/cli.md");
  return files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), "utf8").matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((block) =>
      block[1]!.split("\n").map((line) => `${file}: ${line}`),
    ),
  );
}
