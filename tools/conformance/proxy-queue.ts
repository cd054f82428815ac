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
 * given back, the rest of its bodies is read and dropped (a tee's other branch must be read, or it buffers),
 * and it is forwarded but not checked.
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

export async function collect(stream: ReadableStream<Uint8Array>, cap: number, hold: Hold): Promise<Collected> {
  const reader = stream.getReader();
  let chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    if (total + value.length <= cap && !hold.busy) {
      if (hold.take(value.length)) chunks.push(value);
      else chunks = [];
    }
    total += value.length;
  }
  return { bytes: Buffer.concat(chunks), whole: total <= cap };
}
