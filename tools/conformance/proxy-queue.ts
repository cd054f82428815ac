/**
 * What waits for `ext proxy`'s checks: each exchange admitted holds a share of a bounded queue (entries, and
 * the body bytes kept for its check). Past the bound an exchange is forwarded but not checked ("busy"), so no
 * local user can make the proxy buffer without bound.
 */

/** What waits for the checks now, and the most it has held. */
export interface QueueState {
  entries: number;
  bytes: number;
  peakEntries: number;
  peakBytes: number;
}

/**
 * One exchange's share of the queue. Once the queue cannot take a chunk the exchange is `busy`: what it held is
 * given back, its copies are dropped, and it is forwarded but not checked.
 */
export interface Hold {
  busy: boolean;
  bytes: number;
  take(n: number): boolean;
  release(): void;
}

export function createQueue(limits: { entries: number; bytes: number }, onBusy: () => void) {
  const state: QueueState = { entries: 0, bytes: 0, peakEntries: 0, peakBytes: 0 };
  /** A hold for a new exchange, or null (counted busy) when the queue has no room for another. */
  function admit(): Hold | null {
    if (state.entries >= limits.entries) {
      onBusy();
      return null;
    }
    state.entries++;
    state.peakEntries = Math.max(state.peakEntries, state.entries);
    let released = false;
    const hold: Hold = {
      busy: false,
      bytes: 0,
      take(n) {
        if (hold.busy || released) return false;
        if (state.bytes + n > limits.bytes) {
          hold.busy = true;
          state.bytes -= hold.bytes;
          hold.bytes = 0;
          onBusy();
          return false;
        }
        hold.bytes += n;
        state.bytes += n;
        state.peakBytes = Math.max(state.peakBytes, state.bytes);
        return true;
      },
      release() {
        if (released) return;
        released = true;
        state.entries--;
        state.bytes -= hold.bytes;
        hold.bytes = 0;
      },
    };
    return hold;
  }
  return { admit, state };
}

export type Collected = { bytes: Uint8Array; whole: boolean };

/**
 * The checks' copy of a body (a tee's branch), kept up to `cap`. Once past `cap`, or busy, the branch is
 * cancelled rather than read on: a tee buffers for a branch nobody reads, and this one would otherwise run
 * ahead of a client that reads its answer slowly, buffering the rest of it for that client.
 */
export async function collect(stream: ReadableStream<Uint8Array>, cap: number, hold: Hold): Promise<Collected> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.length;
    // What was kept so far still serves the checks that can use a part (the request's recorded start).
    if (total > cap || !hold.take(value.length)) {
      await reader.cancel();
      return { bytes: Buffer.concat(chunks), whole: false };
    }
    chunks.push(value);
  }
  return { bytes: Buffer.concat(chunks), whole: true };
}
