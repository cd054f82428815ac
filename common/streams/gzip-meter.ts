/**
 * A component folder's gzipped size, measured as its bytes stream by (nothing is buffered): the packer
 * reports it and the inspector checks it against the limits, so both measure it the same way.
 */
import { createGzip } from "node:zlib";
import { drained } from "./drained";

export class GzipMeter {
  bytes = 0;
  private readonly gz = createGzip();
  private readonly ended: Promise<void>;
  constructor() {
    this.gz.on("data", (c: Buffer) => (this.bytes += c.length));
    this.ended = new Promise<void>((resolve, reject) => this.gz.once("end", resolve).once("error", reject));
  }
  async write(chunk: Buffer) {
    if (!this.gz.write(chunk)) await drained(this.gz);
  }
  async finish(): Promise<number> {
    this.gz.end();
    await this.ended;
    return this.bytes;
  }
  destroy() {
    this.gz.destroy();
  }
}
