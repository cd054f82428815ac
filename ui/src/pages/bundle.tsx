import { useState } from "preact/hooks";
import { printable } from "../../../src/printable";
import { admin, soundUrl } from "../api";
import { Badge, bytes, Loading, TableHead, TableWrap } from "../components";
import { useLoad } from "../hooks";
import type { PageProps } from "../page";
import { href } from "../router";

export function BundlePage({ extensionId, versionId }: PageProps & { extensionId: string; versionId: string }) {
  const bundle = useLoad(
    () => admin((c) => c.GET("/_emulator/versions/{versionId}/bundle", { params: { path: { versionId } } })),
    [versionId],
  );
  return (
    <Loading state={bundle}>
      {(b) => (
        <>
          <p class="crumbs">
            <a href={href("extensions")}>Extensions</a> › <a href={href("extensions", extensionId)}>{extensionId}</a> ›{" "}
            {b.version}
          </p>
          <h1>Bundle of {b.version}</h1>
          <p>
            <Badge value={b.status} /> · {bytes(b.bundleSizeBytes)} · {b.soundCount} sounds · SHA-256{" "}
            <code class="wrap">{b.bundleSha256}</code>
          </p>
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
                    <td>
                      <span class="tree" style={{ paddingLeft: `${(f.path.split("/").length - 1) * 1.25}rem` }}>
                        {printable(f.path)}
                      </span>
                    </td>
                    <td>{bytes(f.size)}</td>
                    <td>{f.audio ? <Player versionId={versionId} path={f.path} format={f.audio} /> : ""}</td>
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
