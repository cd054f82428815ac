/**
 * What `ext proxy` found: each difference once, with how often it was seen and its first few examples.
 * Examples are redacted exchanges (the proxy never records an Authorization value, a secret PUT's body, or a
 * secret value an answer carried); variable parts of a message (array indexes) are folded so repeats count as
 * one. Any local user can send traffic through the proxy, so everything here is bounded: at most
 * `CAUSES_KEPT` distinct differences (past that a sighting of a new one is counted, not kept), at most
 * `EXAMPLES_KEPT` examples each, every recorded text cut to a few KiB.
 */

import { writePrivateFile } from "../../common/files/private-file";
import { printable } from "../../common/text/printable";
import type { Exchange } from "./types";

/**
 * `request`: the client sent what the spec does not describe. `answer`: the answer breaks the spec. `choice`:
 * it departs from a choice ext made where the spec says "not shown". `shadow`: ext answered otherwise.
 */
export type Source = "request" | "answer" | "choice" | "shadow";

/** An exchange as the report keeps it; for shadow differences, with ext's answer to the same request. */
export type Example = Exchange & { ext?: Exchange["response"] };

export interface Difference {
  source: Source;
  endpoint: string;
  difference: string;
  count: number;
  /** The first sightings, at most EXAMPLES_KEPT. */
  examples: Example[];
}

export interface ProxyReport {
  upstream: string;
  /** True when the proxy replays exchanges in a shadow emulator (`--shadow`, or `--save-profile`, which learns so). */
  shadow: boolean;
  /** Exchanges checked. */
  exchanges: number;
  /** Exchanges forwarded but not checked: the checks' queue was full (`busy`). */
  notChecked: { busy: number };
  differences: Difference[];
  /** Sightings of differences not kept: the report already held CAUSES_KEPT distinct ones. */
  differencesLeftOut: number;
}

/** The endpoint name every request to a path the spec does not have is recorded under: one cause, not one per path. */
export const UNKNOWN_PATHS = "(paths the API does not have)";
export const CAUSES_KEPT = 200;
export const EXAMPLES_KEPT = 3;
/** A recorded body (or path) longer than this is cut, saying how much was left out. */
export const RECORDED_CHARS = 4096;
/** A difference's text longer than this is cut (a field name the client sent can be a megabyte long). */
const DIFFERENCE_CHARS = 300;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}

function cutAnswer(r: Exchange["response"]): Exchange["response"] {
  return r && { ...r, body: cut(r.body, RECORDED_CHARS) };
}

function kept(example: Exchange, ext: Exchange["response"] | undefined): Example {
  const { request } = example;
  return {
    ...example,
    request: {
      ...request,
      path: cut(request.path, RECORDED_CHARS),
      ...(request.body === undefined ? {} : { body: cut(request.body, RECORDED_CHARS) }),
    },
    response: cutAnswer(example.response),
    ...(ext ? { ext: cutAnswer(ext) } : {}),
  };
}

export class DifferenceLog {
  private readonly byKey = new Map<string, Difference>();
  exchanges = 0;
  notCheckedBusy = 0;
  private leftOut = 0;
  constructor(
    readonly upstream: string,
    readonly shadow: boolean,
  ) {}

  add(source: Source, endpoint: string, difference: string, example: Exchange, ext?: Exchange["response"]): void {
    const folded = cut(difference.replace(/\[\d+\]/g, "[]"), DIFFERENCE_CHARS);
    const key = `${source}\u0000${endpoint}\u0000${folded}`;
    const seen = this.byKey.get(key);
    if (seen) {
      seen.count++;
      if (seen.examples.length < EXAMPLES_KEPT) seen.examples.push(kept(example, ext));
    } else if (this.byKey.size >= CAUSES_KEPT) this.leftOut++;
    else this.byKey.set(key, { source, endpoint, difference: folded, count: 1, examples: [kept(example, ext)] });
  }

  report(): ProxyReport {
    return {
      upstream: this.upstream,
      shadow: this.shadow,
      exchanges: this.exchanges,
      notChecked: { busy: this.notCheckedBusy },
      differences: [...this.byKey.values()],
      differencesLeftOut: this.leftOut,
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
    const { differences, exchanges, notChecked, differencesLeftOut } = this.report();
    const out = [
      `ext proxy: ${exchanges} exchanges with ${printable(this.upstream)}, ${differences.length} distinct differences`,
    ];
    if (notChecked.busy > 0)
      out.push(`  ${notChecked.busy} more exchanges forwarded but not checked: busy (the checks' queue was full)`);
    if (differencesLeftOut > 0)
      out.push(
        `  ${differencesLeftOut} sightings of further differences left out: the report keeps at most ${CAUSES_KEPT} distinct ones`,
      );
    const label: Record<Source, string> = {
      request: "client bug",
      answer: "answer differs from the spec",
      choice: "ext chose otherwise (not shown in the spec)",
      shadow: "ext answers otherwise",
    };
    for (const d of differences) {
      out.push(`  [${label[d.source]}] ${d.endpoint}: ${printable(d.difference)} (×${d.count})`);
      const example = d.examples[0]!;
      const r = example.response;
      out.push(
        `      e.g. ${printable(example.request.method)} ${printable(example.request.path.slice(0, 160))} → ${r ? `${r.status} ${printable(r.body.slice(0, 160))}` : "no answer"}`,
      );
      if (example.ext) out.push(`      ext: ${example.ext.status} ${printable(example.ext.body.slice(0, 160))}`);
    }
    return out;
  }
}
