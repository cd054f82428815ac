/** Whole tar archives as lists of entries (name → bytes, in order), for tests that read or rewrite one. */
import tar from "tar-stream";

/** A tar's entries, name → bytes, in order. */
export async function entriesOf(archive: Uint8Array): Promise<[string, Buffer][]> {
  const extract = tar.extract();
  const out: [string, Buffer][] = [];
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      out.push([entry.header.name, Buffer.concat(chunks)]);
    }
  })();
  extract.end(Buffer.from(archive));
  await done;
  return out;
}

/** A tar of these entries. */
export async function tarOf(entries: [string, Buffer][]): Promise<Buffer> {
  const pack = tar.pack();
  for (const [name, body] of entries) pack.entry({ name }, body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
