import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import type { Loaded } from "./hooks";

export function Status({ message }: { message: { kind: "ok" | "error"; text: string; details?: string[] } | null }) {
  return (
    <div class="status-region" role="status" aria-live="polite">
      {message && (
        <div class={message.kind === "ok" ? "note ok" : "note error"}>
          <p>{message.text}</p>
          {message.details && message.details.length > 0 && (
            <ul>
              {message.details.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** Loading, failed or ready. */
export function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (state.error)
    return (
      <div class="note error" role="alert">
        {state.error.message}
      </div>
    );
  if (state.data === undefined) return <p class="muted">Loading…</p>;
  return <>{children(state.data)}</>;
}

/** A table that scrolls sideways on a narrow screen; focusable so the keyboard can scroll it. */
export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      <table>{children}</table>
    </div>
  );
}

/** A table's column headings; `hidden` names a last column (e.g. its buttons) for screen readers only. */
export function TableHead({ columns, hidden }: { columns: string[]; hidden?: string }) {
  return (
    <thead>
      <tr>
        {columns.map((c) => (
          <th scope="col" key={c}>
            {c}
          </th>
        ))}
        {hidden && (
          <th scope="col">
            <span class="sr-only">{hidden}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      class="secondary"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        } catch {
          setCopied(false);
        }
      }}
    >
      {copied ? "Copied" : label}
    </button>
  );
}

export function Code({ text, label }: { text: string; label: string }) {
  return (
    <div class="code">
      <pre aria-label={label} tabIndex={0}>
        <code>{text}</code>
      </pre>
      <CopyButton text={text} label={`Copy ${label}`} />
    </div>
  );
}

export const when = (iso: string | null | undefined) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—");
export const bytes = (n: number) =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KB` : `${n} B`;

export function Badge({ value }: { value: string }) {
  return <span class={`badge badge-${value.replace(/[^a-z_]/g, "")}`}>{value}</span>;
}

export function Tabs<T extends string>({
  tabs,
  current,
  onSelect,
  label,
}: {
  tabs: { id: T; label: string }[];
  current: T;
  onSelect: (id: T) => void;
  label: string;
}) {
  return (
    <div class="tabs" role="group" aria-label={label}>
      {tabs.map((t) => (
        <button
          type="button"
          key={t.id}
          class={t.id === current ? "tab active" : "tab"}
          aria-pressed={t.id === current}
          onClick={() => onSelect(t.id)}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
