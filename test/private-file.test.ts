/**
 * The one writer of files (common/files/private-file.ts): 0600 unless asked otherwise, never through a link, whole or
 * not at all, and a file that cannot be put in place is an error naming it, with nothing left behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileWriteError, openPrivateFile, writePrivateFile } from "../common/files/private-file";

let dir: string;
let victim: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "ext-private-file-"));
  victim = join(dir, "victim");
  writeFileSync(victim, "keep me\n");
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const leftovers = (folder: string) => readdirSync(folder).filter((n) => n.endsWith(".tmp"));

describe("writePrivateFile", () => {
  test("writes the file whole, 0600, with no temporary file left", () => {
    const folder = mkdtempSync(join(dir, "plain-"));
    const file = join(folder, "report.json");
    writePrivateFile(file, '{"a":1}\n');
    expect(readFileSync(file, "utf8")).toBe('{"a":1}\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(folder)).toEqual([]);
  });

  test("durable: false (a file describing the running process) is put in place whole all the same", () => {
    const folder = mkdtempSync(join(dir, "not-durable-"));
    const file = join(folder, "server.json");
    symlinkSync(victim, file);
    writePrivateFile(file, '{"url":"http://127.0.0.1:1"}\n', { durable: false });
    expect(readFileSync(file, "utf8")).toBe('{"url":"http://127.0.0.1:1"}\n');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(leftovers(folder)).toEqual([]);
  });

  test("a link at the path is replaced by the file, never written through", () => {
    const folder = mkdtempSync(join(dir, "link-"));
    const file = join(folder, "report.xml");
    symlinkSync(victim, file);
    writePrivateFile(file, "<testsuite/>");
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    expect(lstatSync(file).isFile()).toBe(true);
  });

  test("a shared file gets the mode asked for (the umask still applies)", () => {
    const file = join(mkdtempSync(join(dir, "shared-")), "manifest.json");
    writePrivateFile(file, "{}", { mode: 0o644 });
    expect(statSync(file).mode & 0o700).toBe(0o600);
    expect(statSync(file).mode & 0o077).toBe(0o644 & 0o077 & ~process.umask());
  });

  test("replace: false leaves a file or a link already there alone, and says so", () => {
    const folder = mkdtempSync(join(dir, "no-replace-"));
    writeFileSync(join(folder, "taken"), "theirs");
    symlinkSync(victim, join(folder, "linked"));
    for (const name of ["taken", "linked"]) {
      const e = (() => {
        try {
          writePrivateFile(join(folder, name), "mine", { replace: false, what: "the scaffold file" });
          return null;
        } catch (caught) {
          return caught;
        }
      })();
      expect(e).toBeInstanceOf(FileWriteError);
      expect((e as Error).message).toBe(
        `cannot write the scaffold file to ${join(folder, name)} (a file is already there)`,
      );
    }
    expect(readFileSync(join(folder, "taken"), "utf8")).toBe("theirs");
    expect(readFileSync(victim, "utf8")).toBe("keep me\n");
    expect(leftovers(folder)).toEqual([]);
    writePrivateFile(join(folder, "fresh"), "mine", { replace: false });
    expect(readFileSync(join(folder, "fresh"), "utf8")).toBe("mine");
  });

  test("a rename that fails (a folder in the way) is an error naming the file, with nothing left behind", () => {
    const folder = mkdtempSync(join(dir, "in-the-way-"));
    mkdirSync(join(folder, "report.json"));
    writeFileSync(join(folder, "report.json", "inside"), "");
    expect(() => writePrivateFile(join(folder, "report.json"), "x", { what: "the report" })).toThrow(
      `cannot write the report to ${join(folder, "report.json")} (a folder is in the way)`,
    );
    expect(leftovers(folder)).toEqual([]);
  });

  test("a folder that does not exist: the reason in words, with the errno's code kept", () => {
    const file = join(dir, "missing", "report.json");
    try {
      writePrivateFile(file, "x");
      throw new Error("written");
    } catch (e) {
      expect(e).toBeInstanceOf(FileWriteError);
      expect((e as FileWriteError).code).toBe("ENOENT");
      expect((e as Error).message).toBe(`cannot write a file to ${file} (its folder does not exist)`);
    }
  });
});

describe("openPrivateFile", () => {
  test("chunks as they come, committed into place; an aborted one leaves nothing", () => {
    const folder = mkdtempSync(join(dir, "stream-"));
    const file = openPrivateFile(join(folder, "bundle.tar.gz"));
    file.write(new Uint8Array([1, 2]));
    file.write("ab");
    expect(readdirSync(folder)).toHaveLength(1);
    file.commit();
    expect([...readFileSync(join(folder, "bundle.tar.gz"))]).toEqual([1, 2, 97, 98]);
    const dropped = openPrivateFile(join(folder, "dropped"));
    dropped.write("half");
    dropped.abort();
    expect(readdirSync(folder)).toEqual(["bundle.tar.gz"]);
    expect(() => dropped.write("more")).toThrow("written after it was committed or dropped");
  });
});
