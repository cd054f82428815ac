import { useEffect, useState } from "preact/hooks";
import { type AdminClient, admin, asAccount, type ClockChange, type FaultRuleInput } from "../api";
import { FieldError, invalidProps, Loading, Status, TableHead, TableWrap, when } from "../components";
import { checkFields } from "../field-rules";
import { useAction, useFieldCheck, useLoad } from "../hooks";
import type { PageProps } from "../page";

export function OverridesPanel({ account }: PageProps) {
  const [target, setTarget] = useState("");
  const extensions = useLoad(
    () =>
      account
        ? asAccount(account, (api) => api.GET("/developer/v1/extensions")).then((r) => r.extensions)
        : Promise.resolve([]),
    [account],
  );
  // The extension's overrides, or the account's when no extension is chosen.
  const scope = {
    get: (c: AdminClient) =>
      target
        ? c.GET("/_emulator/overrides/extensions/{id}", { params: { path: { id: target } } })
        : c.GET("/_emulator/overrides/accounts/{id}", { params: { path: { id: account } } }),
    put: (c: AdminClient, body: Record<string, number>) =>
      target
        ? c.PUT("/_emulator/overrides/extensions/{id}", { params: { path: { id: target } }, body })
        : c.PUT("/_emulator/overrides/accounts/{id}", { params: { path: { id: account } }, body }),
    remove: (c: AdminClient) =>
      target
        ? c.DELETE("/_emulator/overrides/extensions/{id}", { params: { path: { id: target } } })
        : c.DELETE("/_emulator/overrides/accounts/{id}", { params: { path: { id: account } } }),
  };
  const current = useLoad(
    () => (account ? admin(scope.get).then((r) => r.overrides) : Promise.resolve({})),
    [account, target],
  );
  const keys = useLoad(
    () =>
      account
        ? admin((c) => c.GET("/_emulator/limits", { params: { query: { accountId: account } } })).then((r) =>
            r.limits.map((l) => l.key),
          )
        : Promise.resolve([]),
    [account],
  );
  const [rows, setRows] = useState<[string, string][]>([]);
  useEffect(() => setRows(Object.entries(current.data ?? {}).map(([k, v]) => [k, String(v)])), [current.data]);
  const [newKey, setNewKey] = useState("max_sounds_per_extension");
  const action = useAction();
  const form = useFieldCheck("LimitValues");
  return (
    <section aria-labelledby="ov-h">
      <h2 id="ov-h">Limit overrides</h2>
      <div class="inline">
        <label for="ov-scope">Scope</label>
        <select id="ov-scope" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
          <option value="">Account {account} (developer override)</option>
          {(extensions.data ?? []).map((e) => (
            <option key={e.id} value={e.id}>
              Extension {e.name} (extension override)
            </option>
          ))}
        </select>
      </div>
      <Loading state={current}>
        {() => (
          <form
            class="stack"
            noValidate
            onSubmit={async (e) => {
              e.preventDefault();
              action.clear();
              const fields = Object.fromEntries(rows.map(([k, v]) => [k, { id: `ov-${k}`, label: k, value: v }]));
              if (!form.check(fields)) return;
              await action.run(async () => {
                const values = Object.fromEntries(rows.map(([k, v]) => [k, Number(v)]));
                await admin((c) => scope.put(c, values));
                current.reload();
              }, "Overrides saved.");
            }}
          >
            {rows.length === 0 && (
              <p>No overrides: every limit has its platform default (or the account's override).</p>
            )}
            {rows.map(([k, v], i) => (
              <div class="inline" key={k}>
                <label for={`ov-${k}`}>
                  <code>{k}</code>
                </label>
                <input
                  id={`ov-${k}`}
                  type="number"
                  value={v}
                  onInput={(e) => setRows(rows.map((r, j) => (j === i ? [k, e.currentTarget.value] : r)))}
                  {...invalidProps(`ov-${k}-error`, form.problems[k])}
                />
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Drop ${k}`}
                  onClick={() => setRows(rows.filter((_, j) => j !== i))}
                >
                  Drop
                </button>
                <FieldError id={`ov-${k}-error`} problem={form.problems[k]} />
              </div>
            ))}
            <div class="inline">
              <label for="ov-new">Add a limit</label>
              <select id="ov-new" value={newKey} onChange={(e) => setNewKey(e.currentTarget.value)}>
                {(keys.data ?? []).map((k) => (
                  <option key={k} value={k}>
                    {k}
                  </option>
                ))}
              </select>
              <button
                type="button"
                class="secondary"
                onClick={() => !rows.some(([k]) => k === newKey) && setRows([...rows, [newKey, ""]])}
              >
                Add
              </button>
            </div>
            <p>
              <button type="submit" disabled={action.busy}>
                Save overrides
              </button>{" "}
              <button
                type="button"
                class="danger"
                onClick={() =>
                  action.run(async () => {
                    await admin(scope.remove);
                    current.reload();
                  }, "Overrides removed.")
                }
              >
                Remove all
              </button>
            </p>
          </form>
        )}
      </Loading>
      <Status message={action.message} />
    </section>
  );
}

export function ClockPanel() {
  const clock = useLoad(() => admin((c) => c.GET("/_emulator/clock")), []);
  const [seconds, setSeconds] = useState("3600");
  const [at, setAt] = useState("");
  const [freeze, setFreeze] = useState(true);
  const action = useAction();
  // ClockChange is a oneOf: each form sends one branch, whose field is then required.
  const form = useFieldCheck("ClockChange");
  const post = (body: ClockChange, done: string) =>
    action.run(async () => {
      await admin((c) => c.POST("/_emulator/clock", { body }));
      clock.reload();
    }, done);
  return (
    <section aria-labelledby="clock-h">
      <h2 id="clock-h">Clock</h2>
      <Loading state={clock}>
        {(c) => (
          <p data-testid="clock-now">
            {when(c.now)} — {c.mode}, offset {Math.round(c.offsetMs / 1000)} s
          </p>
        )}
      </Loading>
      <form
        class="inline"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          action.clear();
          const field = { id: "clock-adv", label: "Advance by", value: seconds, required: true };
          if (form.check({ advanceSeconds: field })) post({ advanceSeconds: Number(seconds) }, "Clock moved.");
        }}
      >
        <label for="clock-adv">Advance by (seconds)</label>
        <input
          id="clock-adv"
          type="number"
          value={seconds}
          onInput={(e) => setSeconds(e.currentTarget.value)}
          {...invalidProps("clock-adv-error", form.problems.advanceSeconds)}
        />
        <button type="submit">Advance</button>
        <FieldError id="clock-adv-error" problem={form.problems.advanceSeconds} />
      </form>
      <form
        class="inline"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          action.clear();
          const field = { id: "clock-set", label: "Set to", value: at, required: true };
          if (form.check({ set: field })) post({ set: at.trim(), freeze }, "Clock set.");
        }}
      >
        <label for="clock-set">Set to (ISO 8601)</label>
        <input
          id="clock-set"
          placeholder="2030-01-01T00:00:00.000Z"
          value={at}
          onInput={(e) => setAt(e.currentTarget.value)}
          {...invalidProps("clock-set-error", form.problems.set)}
        />
        <label class="check">
          <input type="checkbox" checked={freeze} onChange={(e) => setFreeze(e.currentTarget.checked)} /> freeze
        </label>
        <button type="submit">Set</button>
        <FieldError id="clock-set-error" problem={form.problems.set} />
      </form>
      <p>
        <button type="button" class="secondary" onClick={() => post({ mode: "frozen" }, "Clock frozen.")}>
          Freeze now
        </button>{" "}
        <button type="button" class="secondary" onClick={() => post({ mode: "real" }, "Back to real time.")}>
          Back to real time
        </button>
      </p>
      <Status message={action.message} />
    </section>
  );
}

export function FaultsPanel() {
  const faults = useLoad(() => admin((c) => c.GET("/_emulator/faults")).then((r) => r.faults), []);
  const [form, setForm] = useState({
    method: "",
    path: "/extensions",
    status: "503",
    code: "",
    times: "",
    latencyMs: "",
  });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: { currentTarget: { value: string } }) =>
    setForm({ ...form, [k]: e.currentTarget.value });
  return (
    <section aria-labelledby="faults-h">
      <h2 id="faults-h">Faults</h2>
      <form
        class="grid"
        onSubmit={async (e) => {
          e.preventDefault();
          action.clear();
          const problems = checkFields("FaultRuleInput", {
            path: { label: "Path", value: form.path },
            status: { label: "Status", value: form.status },
            code: { label: "Code", value: form.code },
            times: { label: "Times", value: form.times },
            latencyMs: { label: "Latency", value: form.latencyMs },
          });
          if (Object.keys(problems).length > 0) return action.refuse(Object.values(problems).join(" "));
          const body: FaultRuleInput = { path: form.path };
          // The select offers the methods the API knows; the server refuses anything else.
          if (form.method) body.method = form.method as NonNullable<FaultRuleInput["method"]>;
          if (form.status) body.status = Number(form.status);
          if (form.code) body.code = form.code;
          if (form.times) body.times = Number(form.times);
          if (form.latencyMs) body.latencyMs = Number(form.latencyMs);
          await action.run(async () => {
            await admin((c) => c.POST("/_emulator/faults", { body }));
            faults.reload();
          }, "Fault added.");
        }}
      >
        <label for="ft-method">Method</label>
        <select id="ft-method" value={form.method} onChange={set("method")}>
          <option value="">any</option>
          {["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => (
            <option key={m}>{m}</option>
          ))}
        </select>
        <label for="ft-path">Path</label>
        <div>
          <input id="ft-path" value={form.path} onInput={set("path")} aria-describedby="ft-path-hint" />
          <p id="ft-path-hint" class="hint">
            Relative to <code>/developer/v1</code>: exact segments, <code>:param</code> for one segment, <code>*</code>{" "}
            for anything — e.g. <code>/extensions/:id/versions</code>
          </p>
        </div>
        <label for="ft-status">Status</label>
        <input id="ft-status" type="number" value={form.status} onInput={set("status")} />
        <label for="ft-code">Code</label>
        <input id="ft-code" value={form.code} onInput={set("code")} />
        <label for="ft-times">Times</label>
        <input id="ft-times" type="number" value={form.times} onInput={set("times")} />
        <label for="ft-lat">Latency (ms)</label>
        <input id="ft-lat" type="number" value={form.latencyMs} onInput={set("latencyMs")} />
        <button type="submit">Add fault</button>
      </form>
      <Status message={action.message} />
      <Loading state={faults}>
        {(items) =>
          items.length === 0 ? (
            <p>No fault rules.</p>
          ) : (
            <TableWrap label="Fault rules">
              <TableHead columns={["Rule", "Effect", "Fired"]} hidden="Actions" />
              <tbody>
                {items.map((f) => (
                  <tr key={f.id}>
                    <td data-label="Rule">
                      {f.method ?? "any"} <code>{f.path}</code>
                    </td>
                    <td data-label="Effect">
                      {f.status !== null ? `${f.status} ${f.code ?? ""}` : "latency only"}
                      {f.latencyMs > 0 ? ` after ${f.latencyMs} ms` : ""}
                      {f.probability < 1 ? `, p=${f.probability}` : ""}
                    </td>
                    <td data-label="Fired">
                      {f.fired}
                      {f.times !== null ? ` of ${f.times}` : ""}
                    </td>
                    <td class="actions">
                      <button
                        type="button"
                        class="danger small"
                        aria-label={`Remove fault ${f.id}`}
                        onClick={() =>
                          action.run(async () => {
                            await admin((c) => c.DELETE("/_emulator/faults/{id}", { params: { path: { id: f.id } } }));
                            faults.reload();
                          }, "Fault removed.")
                        }
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          )
        }
      </Loading>
      <p>
        <button
          type="button"
          class="danger"
          onClick={() =>
            action.run(async () => {
              await admin((c) => c.DELETE("/_emulator/faults"));
              faults.reload();
            }, "Every fault removed.")
          }
        >
          Remove all faults
        </button>
      </p>
    </section>
  );
}
