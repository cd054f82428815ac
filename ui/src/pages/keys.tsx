import { useState } from "preact/hooks";
import { admin } from "../api";
import {
  Badge,
  CopyButton,
  Crumbs,
  FieldError,
  invalidProps,
  Loading,
  Status,
  TableHead,
  TableWrap,
  useTitle,
  when,
} from "../components";
import { useAction, useFieldCheck, useLoad } from "../hooks";
import { accountName, type PageProps } from "../page";

const SCOPES = ["extensions:read", "extensions:write", "versions:write", "secrets:read", "secrets:write", "*"] as const;

export function KeysPage(props: PageProps) {
  const { account, refreshAccounts } = props;
  useTitle("API keys");
  const accountPath = { path: { accountId: account } };
  const keys = useLoad(
    () =>
      account
        ? admin((c) => c.GET("/_emulator/accounts/{accountId}/keys", { params: accountPath })).then((r) => r.apiKeys)
        : Promise.resolve([]),
    [account],
  );
  const cap = useLoad(
    () =>
      account
        ? admin((c) => c.GET("/_emulator/limits", { params: { query: { accountId: account } } })).then((r) =>
            r.limits.find((l) => l.key === "max_api_keys"),
          )
        : Promise.resolve(undefined),
    [account],
  );
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<(typeof SCOPES)[number][]>(["extensions:read"]);
  const [created, setCreated] = useState<{ name: string; plaintext: string } | null>(null);
  const action = useAction();
  const form = useFieldCheck("ApiKeyCreate");
  const refresh = () => {
    keys.reload();
    cap.reload();
    refreshAccounts();
  };

  return (
    <>
      <h1>API keys</h1>
      <Crumbs items={[{ label: accountName(props) }, { label: "Security" }, { label: "API keys" }]} />
      <p>
        Active keys:{" "}
        <strong data-testid="key-usage">{cap.data ? `${cap.data.usage ?? 0} of ${cap.data.value}` : "…"}</strong>.
        Revoked keys stop working on the next request.
      </p>
      <section aria-labelledby="create-h">
        <h2 id="create-h">Create a key</h2>
        <form
          class="stack"
          onSubmit={async (e) => {
            e.preventDefault();
            setCreated(null);
            action.clear();
            const valid = form.check(
              { name: { id: "key-name", label: "Name", value: name } },
              scopes.length === 0 ? { scopes: "Choose at least one scope." } : {},
            );
            if (!valid) return;
            await action.run(async () => {
              const res = await admin((c) =>
                c.POST("/_emulator/accounts/{accountId}/keys", { params: accountPath, body: { name, scopes } }),
              );
              setCreated({ name: res.apiKey.name, plaintext: res.plaintext });
              setName("");
              refresh();
            }, "Key created.");
          }}
        >
          <label for="key-name">Name</label>
          <input
            id="key-name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...invalidProps("key-name-error", form.problems.name)}
          />
          <FieldError id="key-name-error" problem={form.problems.name} />
          <fieldset aria-describedby={form.problems.scopes ? "key-scopes-error" : undefined}>
            <legend>Scopes</legend>
            {SCOPES.map((s) => (
              <label class="check" key={s}>
                <input
                  type="checkbox"
                  checked={scopes.includes(s)}
                  onChange={(e) => setScopes(e.currentTarget.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
                />{" "}
                <code>{s}</code>
              </label>
            ))}
            <FieldError id="key-scopes-error" problem={form.problems.scopes} />
          </fieldset>
          <button type="submit" disabled={action.busy}>
            Create key
          </button>
        </form>
        <Status message={action.message} />
        {created && (
          <div class="note ok" data-testid="new-key">
            <p>
              The key <strong>{created.name}</strong> — shown this once; only its hash is kept:
            </p>
            <p class="secret">
              <code data-testid="plaintext">{created.plaintext}</code>{" "}
              <CopyButton text={created.plaintext} label="Copy key" />
            </p>
          </div>
        )}
      </section>
      <section aria-labelledby="list-h">
        <h2 id="list-h">Keys</h2>
        <Loading state={keys}>
          {(list) => (
            <TableWrap label="API keys">
              <TableHead columns={["Name", "Prefix", "Scopes", "Created", "Last used", "State"]} hidden="Actions" />
              <tbody>
                {list.map((k) => (
                  <tr key={k.id}>
                    <td data-label="Name">
                      {k.name}
                      {/* Each start revokes the previous run's dashboard key: only a working one is this dashboard's. */}
                      {k.name === "dashboard" && k.revokedAt === null && (
                        <span class="muted"> (used by this dashboard)</span>
                      )}
                    </td>
                    <td data-label="Prefix">
                      <code>{k.keyPrefix}…</code>
                    </td>
                    <td data-label="Scopes">{k.scopes.join(", ")}</td>
                    <td data-label="Created">{when(k.createdAt)}</td>
                    <td data-label="Last used">{when(k.lastUsedAt)}</td>
                    <td data-label="State">{k.revokedAt ? <Badge value="revoked" /> : <Badge value="active" />}</td>
                    <td class="actions">
                      {!k.revokedAt && (
                        <button
                          type="button"
                          class="danger"
                          aria-label={`Revoke ${k.name}`}
                          onClick={() =>
                            action.run(async () => {
                              await admin((c) =>
                                c.DELETE("/_emulator/accounts/{accountId}/keys/{keyId}", {
                                  params: { path: { accountId: account, keyId: k.id } },
                                }),
                              );
                              refresh();
                            }, `Key ${k.name} revoked.`)
                          }
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          )}
        </Loading>
      </section>
    </>
  );
}
