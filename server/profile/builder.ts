/**
 * Observations of many answers → one profile. The same difference seen twice is one entry (its evidence the
 * first sighting; every sighting is kept for the report's causes); the same place seen with two values is no
 * entry at all (the platform answers otherwise from one request to the next: reported, never averaged). An
 * entry the compiler refuses alone is left out with the compiler's reason. Entries are sorted, so two runs
 * over the same traffic — conformance's checks, or the proxy's exchanges — save the same profile.
 */

import { answerShapes } from "./answer-shapes.generated";
import { compileProfile, ProfileError } from "./compile";
import { answerWords, changeWords, headerName } from "./explain";
import { PROFILE_VERSION, type Profile, type ProfileEntry } from "./model";
import { canonical, type Observation, type ObservedEntry } from "./observe";
import type { AnswerShapes } from "./shapes";

export interface Sighting {
  /** The check id, or the exchange as `METHOD /path → status`. */
  label: string;
  check?: string;
  exchange?: string;
}

/** Where an entry applies and what it changes, without the observed value: two values here conflict. */
export function placeOf(e: ObservedEntry | ProfileEntry): string {
  const what =
    "path" in e ? e.path : "header" in e ? e.header.toLowerCase() : e.difference === "error-field" ? e.field : "";
  return [e.operation, e.answer, e.code ?? "", e.difference, what].join("\u0000");
}

/** The place and the observed value (a field-type's example aside). */
export function keyOf(e: ObservedEntry | ProfileEntry): string {
  return `${placeOf(e)}\u0000${"observed" in e ? canonical(e.observed) : ""}`;
}

/** What an entry is about, in words: "error.code", "extensions[].installCount", "WWW-Authenticate header". */
function whatOf(e: ObservedEntry): string {
  if ("path" in e) return e.path;
  if ("header" in e) return `${headerName(e.header)} header`;
  return e.difference === "error-field" ? `error.${e.field}` : "status";
}

/** A cause: the difference without the operation, so one platform habit seen on many operations is one line. */
export function causeOf(e: ObservedEntry | ProfileEntry, shapes: AnswerShapes = answerShapes()): string {
  const change = changeWords(e as ProfileEntry, shapes);
  if (e.difference === "error-field" && e.field === "code") return change;
  return `${answerWords(e)}${typeof e.answer === "number" ? " answers" : ""}: ${change}`;
}

interface Held {
  entry: ObservedEntry;
  first: Sighting;
  sightings: Sighting[];
}

/**
 * Sightings kept per entry or reason: a report names the checks or endpoints a cause explains, which a few
 * dozen sightings show; a proxy running for days sees the same difference on every exchange.
 */
const SIGHTINGS_KEPT = 100;

/** Adds `sighting` to `list` while it holds fewer than SIGHTINGS_KEPT. */
const keep = (list: Sighting[], sighting: Sighting) => {
  if (list.length < SIGHTINGS_KEPT) list.push(sighting);
};

export class ProfileBuilder {
  private readonly held = new Map<string, Held>();
  /** Place → the reason it is left out. */
  private readonly conflicts = new Map<string, string>();
  private readonly unexpressible = new Map<string, Sighting[]>();

  constructor(
    private readonly source: "conformance" | "proxy",
    private readonly target: string,
    private readonly at: string,
    private readonly shapes: AnswerShapes = answerShapes(),
  ) {}

  add(observation: Observation, sighting: Sighting): void {
    for (const entry of observation.entries) {
      const place = placeOf(entry);
      const held = this.held.get(place);
      const conflict = this.conflicts.get(place);
      if (conflict) keep(this.unexpressible.get(conflict)!, sighting);
      else if (!held) this.held.set(place, { entry, first: sighting, sightings: [sighting] });
      else if (keyOf(held.entry) === keyOf(entry)) keep(held.sightings, sighting);
      else {
        this.held.delete(place);
        const values = [held.entry, entry].map((e) => ("observed" in e ? canonical(e.observed) : "")).join(" and ");
        const reason = `${entry.operation} ${answerWords(entry)}: the target's ${whatOf(entry)} differs from one answer to the next (${values}), which a profile cannot hold`;
        this.conflicts.set(place, reason);
        this.unexpressible.set(reason, [...held.sightings, sighting]);
      }
    }
    for (const reason of observation.unexpressible) {
      const list = this.unexpressible.get(reason) ?? [];
      keep(list, sighting);
      this.unexpressible.set(reason, list);
    }
  }

  private evidence(s: Sighting): ProfileEntry["evidence"] {
    return {
      source: this.source,
      ...(s.check ? { check: s.check } : {}),
      ...(s.exchange ? { exchange: s.exchange } : {}),
      target: this.target,
      at: this.at,
    };
  }

  /** The held entries the compiler accepts, sorted; each refused one joins the unexpressible with its reason. */
  private accepted(): { entry: ProfileEntry; sightings: Sighting[] }[] {
    const sorted = [...this.held.values()].sort((a, b) => (placeOf(a.entry) < placeOf(b.entry) ? -1 : 1));
    const out: { entry: ProfileEntry; sightings: Sighting[] }[] = [];
    for (const h of sorted) {
      const entry = { ...h.entry, evidence: this.evidence(h.first) } as ProfileEntry;
      try {
        compileProfile({ profileVersion: PROFILE_VERSION, entries: [...out.map((o) => o.entry), entry] }, this.shapes);
        out.push({ entry, sightings: h.sightings });
      } catch (e) {
        if (!(e instanceof ProfileError)) throw e;
        const reason = `${entry.operation} ${answerWords(entry)}: ${changeWords(entry, this.shapes)} — left out: ${e.message.replace(/^entry \d+ \([^)]*\): /, "")}`;
        this.unexpressible.set(reason, h.sightings);
      }
    }
    return out;
  }

  profile(): Profile {
    return {
      profileVersion: PROFILE_VERSION,
      target: this.target,
      observedAt: this.at,
      entries: this.accepted().map((a) => a.entry),
    };
  }

  /** Each cause with the sightings it explains, and each difference left out with its sightings. */
  summary(): { causes: { cause: string; seen: string[] }[]; leftOut: { reason: string; seen: string[] }[] } {
    const causes = new Map<string, Set<string>>();
    for (const { entry, sightings } of this.accepted()) {
      const cause = causeOf(entry, this.shapes);
      const set = causes.get(cause) ?? new Set<string>();
      for (const s of sightings) set.add(s.label);
      causes.set(cause, set);
    }
    return {
      causes: [...causes].map(([cause, seen]) => ({ cause, seen: [...seen] })),
      leftOut: [...this.unexpressible].map(([reason, seen]) => ({
        reason,
        seen: [...new Set(seen.map((s) => s.label))],
      })),
    };
  }
}
