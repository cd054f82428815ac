/**
 * What GNU tar (`tar -tvzf`) and Python's tarfile list for an archive, in one shape with the inspector's own
 * reading (paths without a trailing slash, types, sizes), for the differential test. Both tools are on every
 * machine that runs the suite; a tool that stops with an error keeps what it listed before it.
 */
import { DEFAULT_BUNDLE_LIMITS } from "../../server/bundles/bundle-limits";
import { type InspectionResult, inspectBundle } from "../../server/bundles/inspect";

export interface Listed {
  path: string;
  type: string;
  size: number;
}

export interface Listing {
  entries: Listed[];
  /** The tool read the whole archive without an error. */
  ok: boolean;
  error?: string;
}

const trimSlash = (p: string) => (p.length > 1 ? p.replace(/\/+$/, "") : p);

const GNU_TYPES: Record<string, string> = {
  "-": "file",
  d: "directory",
  l: "symlink",
  h: "link",
  c: "character-device",
  b: "block-device",
  p: "fifo",
  C: "contiguous-file",
};

/** Reverses GNU tar's C quoting (LC_ALL=C, so every byte outside printable ASCII is an octal escape). */
function unquoteC(text: string): string {
  const bytes: number[] = [];
  const simple: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, b: 8, f: 12, v: 11, "\\": 92, '"': 34, "?": 63 };
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== "\\") bytes.push(text.charCodeAt(i));
    else if (/[0-7]/.test(text[i + 1] ?? "")) {
      bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
      i += 3;
    } else bytes.push(simple[text[++i]!] ?? text.charCodeAt(i));
  }
  return Buffer.from(bytes).toString("utf8");
}

export async function gnuTarListing(file: string): Promise<Listing> {
  const proc = Bun.spawn(["tar", "--quoting-style=c", "-tvzf", file], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const entries: Listed[] = [];
  for (const line of out.split("\n").filter(Boolean)) {
    const m = /^(\S)\S*\s+\S+\s+(\S+)\s+\S+\s+\S+\s+"((?:[^"\\]|\\.)*)"/.exec(line);
    if (!m) throw new Error(`unexpected tar -tv line: ${line}`);
    entries.push({
      path: trimSlash(unquoteC(m[3]!)),
      type: GNU_TYPES[m[1]!] ?? `other:${m[1]}`,
      size: m[2]!.includes(",") ? 0 : Number(m[2]),
    });
  }
  return { entries, ok: code === 0, ...(code === 0 ? {} : { error: err.trim() }) };
}

/** Lists each archive path read from stdin (one per line, hex-encoded) as one JSON line. */
const PYTHON = `
import json, sys, tarfile
TYPES = {tarfile.REGTYPE: "file", tarfile.AREGTYPE: "file", tarfile.DIRTYPE: "directory", tarfile.SYMTYPE: "symlink", tarfile.LNKTYPE: "link",
         tarfile.CHRTYPE: "character-device", tarfile.BLKTYPE: "block-device", tarfile.FIFOTYPE: "fifo", tarfile.CONTTYPE: "contiguous-file"}
for line in sys.stdin:
    out = {"entries": [], "ok": True}
    try:
        with tarfile.open(bytes.fromhex(line.strip()).decode("utf-8", "surrogateescape"), "r:gz") as tf:
            for m in tf:
                out["entries"].append({"path": m.name.encode("utf-8", "surrogateescape").hex(), "type": TYPES.get(m.type, "other:" + repr(m.type)), "size": m.size})
    except Exception as e:
        out["ok"] = False
        out["error"] = type(e).__name__ + ": " + str(e)
    print(json.dumps(out), flush=True)
`;

/**
 * Python's tarfile, started once and asked for one archive at a time: its start (importing tarfile) costs more
 * than listing most archives. `close()` ends it.
 */
export function tarfileLister() {
  const proc = Bun.spawn(["python3", "-c", PYTHON], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const lines = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  let queue: Promise<unknown> = Promise.resolve();
  const nextLine = async (): Promise<string> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error("python3 (tarfile) ended before answering");
      buffered += value;
    }
    const at = buffered.indexOf("\n");
    const line = buffered.slice(0, at);
    buffered = buffered.slice(at + 1);
    return line;
  };
  const list = async (file: string): Promise<Listing> => {
    proc.stdin.write(`${Buffer.from(file, "utf8").toString("hex")}\n`);
    await proc.stdin.flush();
    const parsed = JSON.parse(await nextLine()) as Listing;
    return {
      ...parsed,
      entries: parsed.entries.map((e) => ({ ...e, path: trimSlash(Buffer.from(e.path, "hex").toString("utf8")) })),
    };
  };
  return {
    /** One archive's listing; calls are answered in order. */
    listing(file: string): Promise<Listing> {
      const answer = queue.then(() => list(file));
      queue = answer.catch(() => undefined);
      return answer;
    },
    async close(): Promise<void> {
      await proc.stdin.end();
      await proc.exited;
    },
  };
}

/** The inspector's result, the entries it read, and whether it read the archive to its end. */
export async function inspectorListing(file: string): Promise<{ result: InspectionResult; listing: Listing }> {
  const entries: Listed[] = [];
  let ok = false;
  const result = await inspectBundle(file, DEFAULT_BUNDLE_LIMITS, {
    entry: (e) => entries.push({ path: trimSlash(e.path), type: e.type, size: e.size }),
    end: () => (ok = true),
  });
  return { result, listing: { entries, ok } };
}
