/**
 * What the account pages show while the emulator has no account (`ext serve --empty`, or after a reset):
 * what to do next, and the two ways to do it here. Both go through POST /_emulator/seed, the same loader
 * as `ext seed`, so the account made is an ordinary one.
 */
import { useState } from "preact/hooks";
// The JSON import types scopes as string[]; the server validates the fixture like any other.
import demo from "../../../fixtures/demo.json";
import { admin, type Fixture } from "../api";

/** An account id from a name: letters, digits, _ and - (the fixture format's rule), with a random tail. */
function accountId(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 40);
  return `acc_${slug || "dev"}_${Math.random().toString(36).slice(2, 8)}`;
}

export function EmptyState({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const seed = async (fixture: Fixture) => {
    setBusy(true);
    setError("");
    try {
      await admin((c) => c.POST("/_emulator/seed", { body: fixture }));
      onCreated();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="empty-h">
      <h1 id="empty-h">No account yet</h1>
      <p>
        This emulator has no developer account, so there is nothing to act as. Create one, or load the demo account
        (with its sample extension and the key <code>ext_demo_…</code> of the README).
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          const trimmed = name.trim();
          if (trimmed) void seed({ accounts: [{ id: accountId(trimmed), name: trimmed }] });
        }}
      >
        <label for="new-account">Account name</label>{" "}
        <input id="new-account" value={name} maxLength={100} required onInput={(e) => setName(e.currentTarget.value)} />{" "}
        <button type="submit" disabled={busy}>
          Create account
        </button>{" "}
        <button type="button" disabled={busy} onClick={() => void seed(demo as Fixture)}>
          Load the demo
        </button>
      </form>
      <p>
        From a shell: <code>ext seed demo --target {location.origin}</code>, or restart without <code>--empty</code>.
      </p>
      <div role="status" aria-live="polite">
        {error && <p class="note error">{error}</p>}
      </div>
    </section>
  );
}
