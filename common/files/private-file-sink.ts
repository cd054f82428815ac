/**
 * The one writer of files (common/files/private-file.ts) as a stream's sink, for the tools that pipe a file
 * into place. Apart from the writer so that node:stream is loaded only by them, not by every server start.
 */
import { Writable } from "node:stream";
import { openPrivateFile, type PrivateFileOptions } from "./private-file";

/** openPrivateFile as a stream's sink (a pipeline's last step): committed when the stream ends, dropped on error. */
export function privateFileSink(path: string, options: PrivateFileOptions = {}): Writable {
  const file = openPrivateFile(path, options);
  let committed = false;
  return new Writable({
    write(chunk: Uint8Array, _encoding, done) {
      try {
        file.write(chunk);
        done();
      } catch (e) {
        done(e as Error);
      }
    },
    final(done) {
      try {
        file.commit();
        committed = true;
        done();
      } catch (e) {
        done(e as Error);
      }
    },
    destroy(error, done) {
      if (!committed) file.abort();
      done(error);
    },
  });
}
