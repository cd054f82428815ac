import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import type { ApiCallError } from "./api";
import { describeError, errorDetails } from "./errors";
import { checkFields, type FieldInput } from "./field-rules";

export interface Loaded<T> {
  data: T | undefined;
  error: ApiCallError | Error | undefined;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and on reload); the latest answer wins. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => mine === seq.current && setState({ data, loading: false }),
      (error: Error) => mine === seq.current && setState({ error, loading: false }),
    );
    // The caller names what the load depends on; the load function itself is new on every render.
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

export interface ActionMessage {
  kind: "ok" | "error";
  text: string;
  /** A refusal's problems, one line each, when it names several (see errorDetails). */
  details?: string[];
}

/**
 * An action's outcome, for the live region: what happened, or the API's refusal (code and message, once).
 * `listDetails`: a refusal that names several problems lists them all (a fixture's), not only the first.
 */
export function useAction({ listDetails = false } = {}) {
  const [message, setMessage] = useState<ActionMessage | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(
    async (work: () => Promise<unknown>, done?: string) => {
      setBusy(true);
      setMessage(null);
      try {
        await work();
        if (done) setMessage({ kind: "ok", text: done });
        return true;
      } catch (e) {
        setMessage({ kind: "error", text: describeError(e), ...(listDetails ? { details: errorDetails(e) } : {}) });
        return false;
      } finally {
        setBusy(false);
      }
    },
    [listDetails],
  );
  /** A problem found before sending (a form's own check): shown like a refusal, no request made. */
  const refuse = useCallback((text: string) => setMessage({ kind: "error", text }), []);
  /** A success whose words depend on the answer (set from inside `run`'s work). */
  const done = useCallback((text: string) => setMessage({ kind: "ok", text }), []);
  return { message, busy, run, refuse, done, clear: () => setMessage(null) };
}

/** Re-runs `tick` every `ms` while the page is open (status changes made elsewhere show up without a reload). */
export function useInterval(tick: () => void, ms: number) {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    const id = setInterval(() => saved.current(), ms);
    return () => clearInterval(id);
  }, [ms]);
}

/**
 * A form's own check against the API's rules for `schema`: `check` records each field's problem, moves focus
 * to the first one, and says whether the form may be sent.
 */
export function useFieldCheck(schema: string) {
  const [problems, setProblems] = useState<Record<string, string>>({});
  const check = useCallback(
    (fields: Record<string, FieldInput & { id: string }>, extra: Record<string, string> = {}) => {
      const found = { ...checkFields(schema, fields), ...extra };
      setProblems(found);
      const first = Object.keys(fields).find((f) => found[f]);
      if (first) document.getElementById(fields[first]!.id)?.focus();
      return Object.keys(found).length === 0;
    },
    [schema],
  );
  return { problems, check, clear: () => setProblems({}) };
}
