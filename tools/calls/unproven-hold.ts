/**
 * The hold on a plain-http server that gives no proof (proven-transport.ts, `heldWithoutProof`): its
 * connections, and nothing else. A listener that took the server's port is reached only on a new connection,
 * and a server that stops closes every connection it has. So while none of the command's connections to it
 * has closed, a new one still reaches it; once one closed — whoever closed it and why: a stop, a restart, an
 * idle limit, an answer framed by the connection's end, a timeout — a new connection may reach someone else.
 * It then carries nothing with a key or token (CredentialWithheldError), and is never kept for a request that
 * does. The connections opened before are kept as long as the server keeps them: closing one ourselves would
 * end what lets the command send keys on a new one.
 */
import type { Http1Connection } from "./http1-connection";
import { CredentialWithheldError } from "./transport-base";

export interface UnprovenHold {
  /** The command's first connection (its answer gave no proof), or, when the server closed it, a new one. */
  adopt(first: Http1Connection, credential: boolean, connect: () => Promise<Http1Connection>): Promise<Http1Connection>;
  /** A new connection for a request (carrying a key or token: `credential`); refused once one closed. */
  open(credential: boolean, connect: () => Promise<Http1Connection>): Promise<Http1Connection>;
  /** A kept connection still open, out of `idle` (closed ones leave it); null when a new one is wanted. */
  take(idle: Http1Connection[], streamed: boolean): Http1Connection | null;
  /** True for a connection opened after one closed: it goes once its request is done. */
  mayNotKeep(connection: Http1Connection): boolean;
}

/** The hold on the server at `url` (its origin, as messages name it). */
export function unprovenHold(url: string): UnprovenHold {
  let closedOne = false;
  const untrusted = new WeakSet<Http1Connection>();
  const watch = (connection: Http1Connection) =>
    connection.onClose(() => {
      closedOne = true;
    });

  async function open(credential: boolean, connect: () => Promise<Http1Connection>): Promise<Http1Connection> {
    if (closedOne && credential) throw new CredentialWithheldError(url, "closed");
    const connection = await connect();
    // One may have closed while this one was connecting: then this one may not reach the server either.
    if (closedOne) {
      untrusted.add(connection);
      if (credential) {
        connection.destroy();
        throw new CredentialWithheldError(url, "closed");
      }
    } else watch(connection);
    return connection;
  }

  return {
    async adopt(first, credential, connect) {
      watch(first);
      if (!first.closed && first.reusable) return first;
      first.destroy();
      return open(credential, connect);
    },
    open,
    take(idle, streamed) {
      for (let i = idle.length - 1; i >= 0; i--) {
        const c = idle[i]!;
        if (c.closed || !c.reusable) {
          idle.splice(i, 1);
          c.destroy();
        }
      }
      // An upload takes a new connection while it may (a kept one the server closes as it is reused would
      // lose it), and a kept one after.
      if (streamed && !closedOne) return null;
      return idle.pop() ?? null;
    },
    mayNotKeep: (connection) => untrusted.has(connection),
  };
}
