/**
 * What the account pages show while the emulator has no account (`ext serve --empty`, or after a reset):
 * what to do next, and the two ways to do it here. Both go through POST /_emulator/seed, the same loader
 * as `ext seed`, so the account made is an ordinary one.
 */
import { useState } from "preact/hooks";
// The JSON import types scopes as string[]; the server validates the fixture like any other.
import demo from "../../../fixtures/demo.json";
import { admin, type Fixture } from "../api";
import { FieldError, invalidProps } from "../components";
import { describeError } from "../errors";
import { useFieldCheck } from "../hooks";

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
  // The account's rules are the fixture format's (its id is made from the name, within its own rule).
  const form = useFieldCheck("FixtureAccount");
  const seed = async (fixture: Fixture) => {
    setBusy(true);
    setError("");
    try {
      await admin((c) => c.POST("/_emulator/seed", { body: fixture }));
      onCreated();
    } catch (e) {
      setError(describeError(e));
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
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setError("");
          if (!form.check({ name: { id: "new-account", label: "Account name", value: name } })) return;
          const trimmed = name.trim();
          void seed({ accounts: [{ id: accountId(trimmed), name: trimmed }] });
        }}
      >
        <label for="new-account">Account name</label>{" "}
        <input
          id="new-account"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          {...invalidProps("new-account-error", form.problems.name)}
        />{" "}
        <button type="submit" disabled={busy}>
          Create account
        </button>{" "}
        <button type="button" disabled={busy} onClick={() => void seed(demo as Fixture)}>
          Load the demo
        </button>
        <FieldError id="new-account-error" problem={form.problems.name} />
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
