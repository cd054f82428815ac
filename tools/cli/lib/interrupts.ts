/**
 * Ctrl-C during a long command (`ext deploy`): one SIGINT listener for the command's whole run, so every
 * phase (packing, upload, --wait) says what became of the work instead of dying in silence.
 *
 * One Ctrl-C can arrive twice: a terminal signals the whole process group, and the npm launcher
 * (packaging/npm/bin/ext.cjs) forwards the SIGINT it got too. A repeat within REPEAT_MS is the same key
 * press; a later one is the user insisting, and ends the process at once (exit 130).
 */
import type { Interrupts } from "../../deploy/interrupts";
import { EXIT, err } from "../output";

export const REPEAT_MS = 500;

export function listenForInterrupts(now: () => number = () => performance.now()): Interrupts {
  let firstAt: number | null = null;
  let answered = false;
  let current: (() => void) | null = null;
  const onSignal = () => {
    const at = now();
    if (firstAt === null) {
      firstAt = at;
      current?.();
      return;
    }
    if (at - firstAt < REPEAT_MS) return;
    err("interrupted again; exiting now");
    process.exit(EXIT.interrupted);
  };
  process.on("SIGINT", onSignal);
  return {
    during<T>(work: Promise<T>, stop: () => Error): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const fire = () => {
          if (answered) return;
          answered = true;
          current = null;
          reject(stop());
        };
        if (firstAt !== null && !answered) return fire();
        current = fire;
        work.then(
          (v) => {
            if (current === fire) current = null;
            resolve(v);
          },
          (e) => {
            if (current === fire) current = null;
            reject(e);
          },
        );
      });
    },
    close() {
      // After a Ctrl-C its echo (the launcher's forwarded copy) may still be on its way: the listener stays
      // to take it as a repeat, or the default action would kill the process before it says what happened.
      if (firstAt === null) process.off("SIGINT", onSignal);
    },
  };
}
