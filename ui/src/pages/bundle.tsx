import { useState } from "preact/hooks";
import { formatBytes, plural } from "../../../common/text/format";
import { printable } from "../../../common/text/printable";
import { admin, asAccount, soundUrl } from "../api";
import { Badge, Crumbs, IdCard, Loading, RejectReason, TableHead, TableWrap, useTitle } from "../components";
import { useLoad } from "../hooks";
import { accountName, type PageProps } from "../page";
import { href } from "../router";

export function BundlePage(props: PageProps & { extensionId: string; versionId: string }) {
  const { extensionId, versionId } = props;
  const bundle = useLoad(
    () => admin((c) => c.GET("/_emulator/versions/{versionId}/bundle", { params: { path: { versionId } } })),
    [versionId],
  );
  // The crumbs name the extension: asked as the bundle's own account, which may not be the one selected.
  const owner = bundle.data?.accountId;
  const extension = useLoad(
    () =>
      owner
        ? asAccount(owner, (api) => api.GET("/developer/v1/extensions/{id}", { params: { path: { id: extensionId } } }))
        : Promise.resolve(undefined),
    [owner, extensionId],
  );
  const extensionName = extension.data?.name;
  // Why review rejected it: the version as its owner's API lists it (the bundle says what was uploaded).
  const reason = useLoad(
    () =>
      owner && bundle.data?.status === "rejected"
        ? asAccount(owner, (api) =>
            api.GET("/developer/v1/extensions/{id}/versions", {
              params: { path: { id: extensionId }, query: { include: "archived" } },
            }),
          ).then((r) => r.versions.find((v) => v.id === versionId)?.rejectReason)
        : Promise.resolve(undefined),
    [owner, extensionId, versionId, bundle.data?.status],
  );
  useTitle(bundle.data ? `${extensionName ?? extensionId} ${bundle.data.version}` : undefined);
  return (
    <Loading state={bundle}>
      {(b) => (
        <>
          <Crumbs
            items={[
              { label: accountName({ account: b.accountId, accounts: props.accounts }) },
              { label: "Extensions", href: href("extensions") },
              { label: extensionName ?? "…", href: href("extensions", extensionId) },
              { label: `Version ${b.version}` },
            ]}
          />
          <h1>
            Bundle of {extensionName ?? "…"} {b.version}
          </h1>
          <IdCard label="Version ID" id={b.versionId} />
          <p>
            <Badge value={b.status} /> · {formatBytes(b.bundleSizeBytes)} · {plural(b.soundCount, "sound")} · SHA-256{" "}
            <code class="wrap">{b.bundleSha256}</code>
          </p>
          {reason.data !== undefined && <RejectReason reason={reason.data} />}
          <section aria-labelledby="warn-h">
            <h2 id="warn-h">Inspection warnings</h2>
            {b.warnings.length === 0 ? (
              <p>None.</p>
            ) : (
              <ul>
                {b.warnings.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            )}
          </section>
          <section aria-labelledby="files-h">
            <h2 id="files-h">Files</h2>
            {b.truncated && <p class="note">Only the first {b.files.length} files are listed.</p>}
            <TableWrap label="Bundle files">
              <TableHead columns={["Path", "Size", "Sound"]} />
              <tbody>
                {b.files.map((f) => (
                  <tr key={f.path}>
                    <td data-label="Path">
                      <span class="tree">
                        {f.path.includes("/") && (
                          <span class="muted">{printable(f.path.slice(0, f.path.lastIndexOf("/") + 1))}</span>
                        )}
                        {printable(f.path.slice(f.path.lastIndexOf("/") + 1))}
                      </span>
                    </td>
                    <td data-label="Size">{formatBytes(f.size)}</td>
                    <td data-label="Sound">
                      {f.audio ? <Player versionId={versionId} path={f.path} format={f.audio} /> : ""}
                    </td>
                  </tr>
                ))}
              </tbody>
            </TableWrap>
          </section>
          <section aria-labelledby="manifest-h">
            <h2 id="manifest-h">manifest.json</h2>
            <pre class="manifest" tabIndex={0} aria-label="manifest.json">
              <code>{b.manifest === null ? "(no readable manifest)" : JSON.stringify(b.manifest, null, 2)}</code>
            </pre>
          </section>
        </>
      )}
    </Loading>
  );
}

/** Loads a sound only when asked: a 60-sound bundle does not fetch 60 files to show its tree. */
function Player({ versionId, path, format }: { versionId: string; path: string; format: string }) {
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (src) return <audio controls src={src} aria-label={`Play ${path}`} />;
  return (
    <>
      <button
        type="button"
        class="secondary small"
        aria-label={`Play ${path} (${format})`}
        onClick={() => soundUrl(versionId, path).then(setSrc, (e: Error) => setError(e.message))}
      >
        Play
      </button>
      {error && <span class="error-text"> {error}</span>}
    </>
  );
}
