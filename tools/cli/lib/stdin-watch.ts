/**
 * `ext serve --exit-with-stdin`: a supervisor (the Node `startEmulator()`, a test runner) spawns the server
 * with a pipe as its standard input and never writes to it. When the supervisor exits — even killed by
 * SIGKILL, which no handler can catch — the operating system closes its end of the pipe and the server reads
 * end-of-file: the one signal of a parent's death that works alike on Linux, macOS and Windows.
 */
/**
 * Calls `onEnd` once, when `input` ends or fails; whatever is written to it is read and dropped. Standard
 * input is read through Bun's own stream: `process.stdin` builds Node's stream machinery, which costs a
 * start-up several milliseconds.
 */
export function watchStdin(onEnd: () => void, input: ReadableStream<Uint8Array> = Bun.stdin.stream()): void {
  let fired = false;
  const fire = () => {
    if (fired) return;
    fired = true;
    // The parent held the other ends of our stdout and stderr too: writing to them now fails with EPIPE,
    // which must not turn a clean shutdown into a crash.
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
    onEnd();
  };
  const reader = input.getReader();
  const drain = async () => {
    while (!(await reader.read()).done) {}
  };
  drain().then(fire, fire);
}
