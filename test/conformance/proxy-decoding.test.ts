/**
 * What ext proxy keeps of an upstream's answer is decoded with a limit on the output: a few compressed bytes
 * can stand for gigabytes (1,503 bytes of brotli decoded to 1.9 GB, and nine such answers took a proxy to
 * 16 GB). Past the limit the body is "not decodable", as a body in an unknown encoding is.
 */
import { expect, test } from "bun:test";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { decoded } from "../../tools/conformance/proxy";

const BOMB = Buffer.alloc(8 * 1024 * 1024, 32); // 8 MiB of spaces, 8 times what is checked: compresses to a few kilobytes
const SMALL = Buffer.from('{"extensions":[]}');

for (const [encoding, compress] of [
  ["br", brotliCompressSync],
  ["gzip", gzipSync],
  ["deflate", deflateSync],
] as const) {
  test(`${encoding}: a small body decodes; one decoding past the limit is not decoded`, () => {
    expect(decoded(compress(SMALL), encoding)).toBe('{"extensions":[]}');
    const bomb = compress(BOMB);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(decoded(bomb, encoding)).toBeNull();
  });
}
