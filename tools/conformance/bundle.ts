/**
 * The smallest bundle the spec's deploy flow accepts: a .tar.gz of a compiled output directory holding only
 * `manifest.json` (`{}` is a valid manifest: no sounds, actions or hosts). Written as `ext deploy` packs
 * (tar-stream, gzip, fixed mtime and owner), in memory: it is a few hundred bytes.
 */
import { gzipSync } from "node:zlib";
import tar from "tar-stream";

const FIXED_MTIME = new Date(946_684_800_000);

export async function smallestBundle(): Promise<Uint8Array> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on("data", (c) => {
      chunks.push(c as Buffer);
    });
    pack.on("end", () => resolve());
    pack.on("error", reject);
  });
  pack.entry({ name: "manifest.json", mode: 0o644, mtime: FIXED_MTIME, uid: 0, gid: 0, uname: "", gname: "" }, "{}\n");
  pack.finalize();
  await done;
  return new Uint8Array(gzipSync(Buffer.concat(chunks), { level: 9 }));
}
