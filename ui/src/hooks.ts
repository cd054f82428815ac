import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiCallError } from "./api";

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

/** An action's outcome, for the live region: what happened, or the API's refusal as it is. */
export function useAction() {
  const [message, setMessage] = useState<{ kind: "ok" | "error"; text: string; details?: string[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (work: () => Promise<unknown>, done?: string) => {
    setBusy(true);
    setMessage(null);
    try {
      await work();
      if (done) setMessage({ kind: "ok", text: done });
      return true;
    } catch (e) {
      const details = e instanceof ApiCallError ? e.details.map((d) => d.message) : [];
      setMessage({
        kind: "error",
        text: e instanceof ApiCallError ? e.summary : String((e as Error).message),
        details,
      });
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { message, busy, run, clear: () => setMessage(null) };
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
