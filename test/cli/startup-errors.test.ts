/** Start-up failures translated from the error thrown (the data dir check is covered from the binary in test/binary/errors.slow.test.ts). */
import { expect, test } from "bun:test";
import { parseServerConfig } from "../../server/base/config";
import { describeStartupError } from "../../tools/cli/lib/startup-errors";

const config = parseServerConfig({ dataDir: "/srv/ext", port: 80 }, {});
const flags = { dataDir: "/srv/ext", port: 80 };
const error = (props: Record<string, unknown>) => Object.assign(new Error("errno text"), props);

test("listen: a port that needs privileges names --port; an address that is not this machine's names --host", () => {
  const port = describeStartupError(error({ code: "EACCES", syscall: "listen" }), config, flags)!;
  expect(port.message).toStartWith("--port 80: this port needs privileges");
  expect(port.exitCode).toBe(1);
  const host = describeStartupError(error({ code: "EADDRNOTAVAIL", syscall: "listen" }), config, {})!;
  expect(host.message).toStartWith("--host 127.0.0.1 (the default): cannot listen there");
  expect(host.exitCode).toBe(2);
});

test("SQLite: read-only is 'cannot write there'; a damaged file says so; both name the data dir", () => {
  const ro = describeStartupError(error({ name: "SQLiteError", code: "SQLITE_READONLY" }), config, flags)!;
  expect(ro.message).toBe(
    "--data-dir /srv/ext: cannot write there (the database file is read-only); give a writable directory with --data-dir, or run with --memory",
  );
  const bad = describeStartupError(error({ name: "SQLiteError", code: "SQLITE_NOTADB" }), config, flags)!;
  expect(bad.message).toContain("ext.sqlite there is damaged or not a SQLite database");
  expect(
    describeStartupError(
      error({ code: "EROFS", path: "/srv/ext/blobs" }),
      parseServerConfig({ dataDir: "/srv/ext" }, { EXT_DATA_DIR: "/srv/ext" }),
      {},
    )!.message,
  ).toStartWith("EXT_DATA_DIR=/srv/ext: cannot write there (it is on a read-only file system)");
});

test("anything else is left as it is", () => {
  expect(describeStartupError(new Error("something else"), config, flags)).toBeNull();
  expect(
    describeStartupError(
      error({ name: "SQLiteError", code: "SQLITE_READONLY" }),
      parseServerConfig({ memory: true }, {}),
      {},
    ),
  ).toBeNull();
});
