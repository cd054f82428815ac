/**
 * The hold on a plain-http server that gives no proof (proven-transport.ts, `heldWithoutProof`): the
 * command's first connection to it, and nothing else. A listener that took the server's port is reached only
 * on a new connection, and a server may stop listening while it keeps the connections it has (Python's
 * ThreadingHTTPServer, a Node server before 19): no close is seen, yet a new connection reaches whoever took
 * the port. So every request that carries a key or token goes on that first connection, one after another
 * (an upload too), and never on another; once it closed — whoever closed it and why: a stop, a restart, an
 * idle limit, an answer framed by the connection's end, a timeout — none is sent again
 * (CredentialWithheldError). Requests without one take other connections, as to any server.
 */
import type { Http1Connection } from "./http1-connection";
import { CredentialConnectionBusyError, CredentialWithheldError, follow } from "./transport-base";
import type { Watchdog } from "./watchdog";

export interface UnprovenHold {
  /**
   * The first connection, once the requests before this one are done with it; CredentialWithheldError once
   * it closed. Waiting for it is timed by `watchdog` (CredentialConnectionBusyError) and ends with the
   * request's signal.
   */
  keyed(watchdog: Watchdog, request: Request): Promise<Http1Connection>;
  /** True when `connection` is the first one: it goes back to the hold (the next request's), not to a pool. */
  release(connection: Http1Connection): boolean;
}

interface Waiter {
  take(): void;
  fail(e: Error): void;
}

/**
 * The hold on the server at `url` (its origin, as messages name it) by `first`, the connection its answer to
 * the challenge came on; `first` is busy with the caller's request until released.
 */
export function unprovenHold(url: string, first: Http1Connection): UnprovenHold {
  let busy = true;
  const waiting: Waiter[] = [];
  const lost = () => first.closed || !first.reusable;
  const failAll = () => {
    for (const w of waiting.splice(0)) w.fail(new CredentialWithheldError(url, "closed"));
  };
  first.onClose(failAll);

  return {
    async keyed(watchdog, request) {
      if (lost()) throw new CredentialWithheldError(url, "closed");
      if (!busy && waiting.length === 0) {
        busy = true;
        return first;
      }
      let unfollow = () => {};
      const turn = new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { take: resolve, fail: reject };
        waiting.push(waiter);
        const leave = (e: Error) => {
          const at = waiting.indexOf(waiter);
          if (at < 0) return;
          waiting.splice(at, 1);
          reject(e);
        };
        watchdog.also(() => leave(new CredentialConnectionBusyError(request.url, request.method, watchdog.ms / 1000)));
        unfollow = follow(request.signal, (reason) => leave(reason as Error));
      });
      try {
        await watchdog.during(turn);
      } finally {
        unfollow();
      }
      return first;
    },
    release(connection) {
      if (connection !== first) return false;
      busy = false;
      if (lost()) {
        first.destroy();
        failAll();
      } else {
        const next = waiting.shift();
        if (next) {
          busy = true;
          next.take();
        }
      }
      return true;
    },
  };
}
