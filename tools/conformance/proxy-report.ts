/**
 * What `ext proxy` found: each difference once, with how often it was seen and its first example. Examples
 * are redacted exchanges (the proxy never records an Authorization value, a secret PUT's body, or a secret
 * value an answer carried); variable parts of a message (array indexes) are folded so repeats count as one.
 */

import { writePrivateFile } from "../../common/files/private-file";
import { printable } from "../../common/text/printable";
import type { Exchange } from "./types";

/**
 * `request`: the client sent what the spec does not describe. `answer`: the answer breaks the spec. `choice`:
 * it departs from a choice ext made where the spec says "not shown". `shadow`: ext answered otherwise.
 */
export type Source = "request" | "answer" | "choice" | "shadow";

export interface Difference {
  source: Source;
  endpoint: string;
  difference: string;
  count: number;
  example: Exchange;
  /** Shadow differences: ext's answer to the same request. */
  ext?: Exchange["response"];
}

export interface ProxyReport {
  upstream: string;
  shadow: boolean;
  exchanges: number;
  differences: Difference[];
}

export class DifferenceLog {
  private readonly byKey = new Map<string, Difference>();
  exchanges = 0;
  constructor(
    readonly upstream: string,
    readonly shadow: boolean,
  ) {}

  add(source: Source, endpoint: string, difference: string, example: Exchange, ext?: Exchange["response"]): void {
    const folded = difference.replace(/\[\d+\]/g, "[]");
    const key = `${source}\u0000${endpoint}\u0000${folded}`;
    const seen = this.byKey.get(key);
    if (seen) seen.count++;
    else this.byKey.set(key, { source, endpoint, difference: folded, count: 1, example, ...(ext ? { ext } : {}) });
  }

  report(): ProxyReport {
    return {
      upstream: this.upstream,
      shadow: this.shadow,
      exchanges: this.exchanges,
      differences: [...this.byKey.values()],
    };
  }

  /**
   * Through the one writer (0600, a fresh random temporary name, no link followed, renamed into place): the
   * report holds exchanges, which the owner alone may read. Throws FileWriteError when it cannot be written.
   */
  write(file: string): void {
    writePrivateFile(file, `${JSON.stringify(this.report(), null, 2)}\n`, { what: "the report" });
  }

  summary(): string[] {
    const { differences, exchanges } = this.report();
    const out = [
      `ext proxy: ${exchanges} exchanges with ${printable(this.upstream)}, ${differences.length} distinct differences`,
    ];
    const label: Record<Source, string> = {
      request: "client bug",
      answer: "answer differs from the spec",
      choice: "ext chose otherwise (not shown in the spec)",
      shadow: "ext answers otherwise",
    };
    for (const d of differences) {
      out.push(`  [${label[d.source]}] ${d.endpoint}: ${printable(d.difference)} (×${d.count})`);
      const r = d.example.response;
      out.push(
        `      e.g. ${d.example.request.method} ${printable(d.example.request.path)} → ${r ? `${r.status} ${printable(r.body.slice(0, 160))}` : "no answer"}`,
      );
      if (d.ext) out.push(`      ext: ${d.ext.status} ${printable(d.ext.body.slice(0, 160))}`);
    }
    return out;
  }
}
