/**
 * What `ext init` writes: a folder `ext deploy` accepts as it is (a manifest naming one sound, the sound a
 * real WAV file), an `.extignore` that keeps the project's own files out of the bundle, a README and a test
 * that deploys the folder to an emulator started by the Node helper `ext-emulator`, written for the test
 * runner of the project it lands in (test-runner.ts), so that runner finds a test it can run.
 */

import { shellQuote } from "../../../common/text/shell-quote";
import pkg from "../../../package.json" with { type: "json" };
import { type FoundRunner, TEST_FILES, type TestRunner } from "./test-runner";

/** A short 880 Hz beep: 8 kHz, 8-bit mono PCM, 0.15 s, faded out. Made here, so no binary file is embedded. */
export function beepWav(): Uint8Array {
  const rate = 8000;
  const samples = 1200;
  const bytes = new Uint8Array(44 + samples);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) bytes[at + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate, true); // bytes per second
  view.setUint16(32, 1, true); // block align
  view.setUint16(34, 8, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, samples, true);
  for (let i = 0; i < samples; i++) {
    const fade = 1 - i / samples;
    bytes[44 + i] = Math.round(128 + 100 * fade * Math.sin((2 * Math.PI * 880 * i) / rate));
  }
  return bytes;
}

export function scaffoldFiles(
  name: string,
  { runner }: FoundRunner = { runner: "node" },
): Record<string, string | Uint8Array> {
  const { devDependencies } = TEST_FILES[runner];
  return {
    "manifest.json": `${JSON.stringify({ name, version: "1.0.0", sounds: [{ name: "beep", file: "sounds/beep.wav" }] }, null, 2)}\n`,
    "sounds/beep.wav": beepWav(),
    ".extignore": [
      "# Left out of the bundle `ext deploy` uploads (gitignore syntax; dotfiles are left out already).",
      "README.md",
      "package.json",
      "package-lock.json",
      "node_modules/",
      "test/",
      "",
    ].join("\n"),
    "package.json": `${JSON.stringify(
      {
        name:
          name
            .toLowerCase()
            .replace(/[^a-z0-9-]+/g, "-")
            .replace(/^-+|-+$/g, "") || "my-extension",
        private: true,
        type: "module",
        scripts: { test: TEST_FILES[runner].script },
        devDependencies: { "ext-emulator": `^${pkg.version}`, ...devDependencies },
      },
      null,
      2,
    )}\n`,
    "README.md": readme(name),
    [`test/${TEST_FILES[runner].file}`]: sampleTest(runner),
  };
}

function readme(name: string): string {
  return `# ${name}

An extension made with \`ext init\`. \`manifest.json\` names its sounds; \`sounds/beep.wav\` is a sample.
\`.extignore\` keeps this README, \`package.json\` and \`test/\` out of the bundle.

With an emulator running (\`npx ext serve\` in another shell, in the folder above this one):

\`\`\`sh
npx ext extensions create --name ${shellQuote(name)}                  # prints the extension's id
npx ext deploy . --extension ID --version 1.0.0 --changelog "First release"
npx ext versions list --extension ID
\`\`\`

Run the test (it starts its own emulator, deploys this folder, approves and installs it):

\`\`\`sh
npm install && npm test
\`\`\`
`;
}

/** The test: the same steps for every runner, in its syntax (node:test and vitest as ES modules, jest as CommonJS). */
function sampleTest(runner: TestRunner): string {
  const imports = {
    node: `import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { binaryPath, startEmulator } from "ext-emulator";

const folder = fileURLToPath(new URL("..", import.meta.url));`,
    vitest: `import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { binaryPath, startEmulator } from "ext-emulator";
import { expect, onTestFinished, test } from "vitest";

const folder = fileURLToPath(new URL("..", import.meta.url));`,
    jest: `const { execFileSync } = require("node:child_process");
const { join } = require("node:path");
const { binaryPath, startEmulator } = require("ext-emulator");

const folder = join(__dirname, "..");`,
  }[runner];
  const equal = (actual: string, expected: string) =>
    runner === "node" ? `assert.equal(${actual}, ${expected});` : `expect(${actual}).toBe(${expected});`;
  const head =
    runner === "node"
      ? `test("this extension deploys, passes review and installs", async (t) => {
  const emu = await startEmulator();
  t.after(() => emu.stop());`
      : runner === "vitest"
        ? `test("this extension deploys, passes review and installs", async () => {
  const emu = await startEmulator();
  onTestFinished(() => emu.stop());`
        : `test("this extension deploys, passes review and installs", async () => {
  const emu = await startEmulator();
  try {`;
  const indent = runner === "jest" ? "    " : "  ";
  const body = [
    "// The CLI, pointed at this emulator by the variables `ext exec` would set; --json prints the API's answer.",
    "// Its notes (upload progress) stay out of the runner's output; a failure's message includes them.",
    "const ext = (...args) =>",
    "  JSON.parse(",
    '    execFileSync(binaryPath(), [...args, "--json"], {',
    "      env: { ...process.env, ...emu.env },",
    '      encoding: "utf8",',
    '      stdio: ["ignore", "pipe", "pipe"],',
    "    }),",
    "  );",
    "",
    'const { extension } = ext("extensions", "create", "--name", "Sample");',
    'const deployed = ext("deploy", folder, "--extension", extension.id, "--version", "1.0.0");',
    equal("deployed.status", '"pending"'),
    "",
    "const reviewed = await emu.approveVersion(deployed.versionId);",
    equal("reviewed.version.status", '"approved"'),
    "",
    "const stats = await emu.addInstalls(extension.id, 3);",
    equal("stats.active", "3"),
  ]
    .map((line) => (line ? indent + line : line))
    .join("\n");
  const tail = runner === "jest" ? "  } finally {\n    await emu.stop();\n  }\n});" : "});";
  return `// Deploys this folder to a fresh emulator, then does what the platform would: review and installs.
${imports}

${head}
${body}
${tail}
`;
}
