import { useState } from "preact/hooks";
import { asAccount } from "../api";
import {
  Badge,
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
import { go, href } from "../router";
import { BundlePage } from "./bundle";
import { ExtensionDetail } from "./extension-detail";

export function ExtensionsPage(props: PageProps) {
  const [, id, sub, versionId] = props.route;
  if (id && sub === "versions" && versionId) return <BundlePage {...props} extensionId={id} versionId={versionId} />;
  if (id) return <ExtensionDetail {...props} extensionId={id} />;
  return <ExtensionList {...props} />;
}

function ExtensionList(props: PageProps) {
  const { account, refreshAccounts } = props;
  useTitle("Extensions");
  const list = useLoad(
    () =>
      account
        ? asAccount(account, (api) => api.GET("/developer/v1/extensions")).then((r) => r.extensions)
        : Promise.resolve([]),
    [account],
  );
  const [name, setName] = useState("");
  const action = useAction();
  const form = useFieldCheck("ExtensionCreate");
  return (
    <>
      <h1>Extensions</h1>
      <Crumbs items={[{ label: accountName(props) }, { label: "Extensions" }]} />
      <Loading state={list}>
        {(items) =>
          items.length === 0 ? (
            <p>No extensions yet.</p>
          ) : (
            <TableWrap label="Extensions">
              <TableHead columns={["Name", "Status", "Visibility", "Installs", "Updated"]} />
              <tbody>
                {items.map((e) => (
                  <tr key={e.id}>
                    <td data-label="Name">
                      <a href={href("extensions", e.id)}>{e.name}</a>
                      <div class="muted small">
                        <code>{e.id}</code>
                      </div>
                    </td>
                    <td data-label="Status">
                      <Badge value={e.status} />
                    </td>
                    <td data-label="Visibility">{e.visibility}</td>
                    <td data-label="Installs">{e.installCount}</td>
                    <td data-label="Updated">{when(e.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          )
        }
      </Loading>
      <section aria-labelledby="new-ext-h">
        <h2 id="new-ext-h">New extension</h2>
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            action.clear();
            if (!form.check({ name: { id: "new-ext-name", label: "Name", value: name } })) return;
            await action.run(async () => {
              const res = await asAccount(account, (api) => api.POST("/developer/v1/extensions", { body: { name } }));
              setName("");
              refreshAccounts();
              go("extensions", res.extension.id);
            });
          }}
        >
          <label for="new-ext-name">Name</label>
          <input
            id="new-ext-name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
            {...invalidProps("new-ext-name-error", form.problems.name)}
          />
          <button type="submit" disabled={action.busy}>
            Create
          </button>
        </form>
        <FieldError id="new-ext-name-error" problem={form.problems.name} />
        <Status message={action.message} />
      </section>
    </>
  );
}
