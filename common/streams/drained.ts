/** Small helpers for Node streams shared by the bundle packer and the bundle inspection. */

interface Emitter {
  on(event: string, fn: () => void): unknown;
  off(event: string, fn: () => void): unknown;
}

/** Resolves when a writable can take more, or is gone (so a destroyed stream never hangs its writer). */
export function drained(stream: Emitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
