import { useEffect } from "preact/hooks";
import { admin, type EmulatorState } from "../api";
import { Code, CopyButton, Loading, TableHead, TableWrap, useTitle, when } from "../components";
import { useLoad } from "../hooks";
import type { PageProps } from "../page";
import { href } from "../router";

const COUNT_LABELS: [keyof EmulatorState["counts"], string][] = [
  ["accounts", "Accounts"],
  ["apiKeys", "Active API keys"],
  ["extensions", "Extensions"],
  ["versions", "Versions"],
  ["secrets", "Secrets"],
  ["activeInstalls", "Active installs"],
  ["limitRequests", "Limit requests"],
  ["teamMembers", "Team members"],
];

export function OverviewPage({ account, accounts, refreshAccounts }: PageProps) {
  const faults = useLoad(() => admin((c) => c.GET("/_emulator/faults")).then((r) => r.faults), []);
  const key = useLoad(
    () =>
      account
        ? admin((c) =>
            c.POST("/_emulator/accounts/{accountId}/dashboard-key", { params: { path: { accountId: account } } }),
          ).then((r) => r.plaintext)
        : Promise.resolve(""),
    [account],
  );
  // The counts are read once the account's dashboard key exists (the first call of a fresh server creates it),
  // so they agree with the API keys page.
  const keyReady = account !== "" && !key.loading;
  const state = useLoad(
    // Until then the load stays pending: the page shows "Loading…" rather than a count about to change.
    () => (keyReady ? admin((c) => c.GET("/_emulator/state")) : new Promise<never>(() => undefined)),
    [keyReady],
  );
  useEffect(() => {
    if (keyReady) refreshAccounts();
  }, [keyReady]);
  useTitle("Overview");
  const origin = location.origin;
  return (
    <>
      <h1>Overview</h1>
      <Loading state={state}>
        {(s) => (
          <section aria-labelledby="state-h">
            <h2 id="state-h">Emulator state</h2>
            <dl class="facts">
              <div>
                <dt>Clock</dt>
                <dd>
                  {s.clock.mode}, {when(s.clock.now)} (offset {Math.round(s.clock.offsetMs / 1000)} s)
                </dd>
              </div>
              <div>
                <dt>Active faults</dt>
                <dd>
                  {(faults.data ?? []).filter((f) => f.times === null || f.fired < f.times).length} of {s.faults}
                </dd>
              </div>
              <div>
                <dt>Auto-approve</dt>
                <dd>{s.autoApproveMs === null ? "off" : `after ${s.autoApproveMs} ms`}</dd>
              </div>
              <div>
                <dt>Rate limits</dt>
                <dd>{s.rateLimits ? "on" : "off"}</dd>
              </div>
              <div>
                <dt>Requests logged</dt>
                <dd>{s.requestsLogged}</dd>
              </div>
            </dl>
            <ul class="counts">
              {COUNT_LABELS.map(([k, label]) => (
                <li key={k}>
                  <span class="count">{s.counts[k] ?? 0}</span> {label}
                </li>
              ))}
            </ul>
          </section>
        )}
      </Loading>
      <section aria-labelledby="accounts-h">
        <h2 id="accounts-h">Accounts</h2>
        <TableWrap label="Accounts">
          <TableHead columns={["Account", "Id", "Extensions", "Active keys", "Created"]} />
          <tbody>
            {accounts.map((a) => (
              <tr key={a.id}>
                <td data-label="Account">{a.name}</td>
                <td data-label="Id">
                  <code>{a.id}</code>
                </td>
                <td data-label="Extensions">
                  <a href={href("extensions")}>{a.extensions}</a>
                </td>
                <td data-label="Active keys">{a.activeApiKeys}</td>
                <td data-label="Created">{when(a.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </TableWrap>
      </section>
      <section aria-labelledby="snippets-h">
        <h2 id="snippets-h">Use it</h2>
        <p>
          These use this server's address and the dashboard key of <code>{account || "—"}</code> (a key named{" "}
          <q>dashboard</q> in its key list; create your own under <a href={href("keys")}>API keys</a>). A key goes in a
          variable, never on a command line, which every user of the machine sees: copy the key, run the first command
          and paste it at its prompt.
        </p>
        <h3>The key, in a variable</h3>
        <Code label="key command" text="read -rs EXT_API_KEY && export EXT_API_KEY" />
        {key.data && (
          <p>
            <CopyButton text={key.data} label="Copy the key" />
          </p>
        )}
        <h3>curl</h3>
        <Code
          label="curl command"
          text={`printf 'Authorization: Bearer %s\\n' "$EXT_API_KEY" | curl -H @- ${origin}/developer/v1/extensions`}
        />
        <h3>ext deploy</h3>
        <Code label="deploy command" text={`ext deploy ./dist --extension <extension id> --target ${origin}`} />
        {account !== "" && account === accounts[0]?.id && (
          <p class="hint">
            In the folder where <code>ext serve</code> runs,{" "}
            <code>ext deploy ./dist --extension &lt;extension id&gt;</code> needs neither: it finds this server and acts
            as its first account, <code>{account}</code>.
          </p>
        )}
        <h3>startEmulator (tests)</h3>
        <Code
          label="startEmulator example"
          text={`import { startEmulator, unwrap } from "ext-emulator";\n\nconst emu = await startEmulator({ fixture: "demo" });\nconst { extensions } = unwrap(await emu.client.GET("/developer/v1/extensions"));\nawait emu.stop();`}
        />
      </section>
    </>
  );
}
