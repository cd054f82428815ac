/**
 * Ctrl-C during a long deploy: `ext deploy` takes it over (tools/cli/lib/interrupts.ts) to say what became of the
 * deploy; a helper leaves it to the process.
 */
export interface Interrupts {
  /**
   * `work`, or the error `stop()` returns once Ctrl-C is pressed while it runs (or was pressed before and not
   * yet answered). `stop` may also cut the work (abort its request).
   */
  during<T>(work: Promise<T>, stop: () => Error): Promise<T>;
  close(): void;
}
