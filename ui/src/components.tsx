import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { describeError } from "./errors";
import type { ActionMessage, Loaded } from "./hooks";

/** How many of a refusal's problems show at once; the rest are one click away. */
const PROBLEMS_OPEN = 10;

export function Status({ message }: { message: ActionMessage | null }) {
  const details = message?.details ?? [];
  return (
    <div class="status-region" role="status" aria-live="polite">
      {message && (
        <div class={message.kind === "ok" ? "note ok" : "note error"}>
          <p>{message.text}</p>
          {details.length > 0 && <Problems lines={details} />}
        </div>
      )}
    </div>
  );
}

/** A refusal's problems as a list: the first few, then the rest behind a disclosure. */
function Problems({ lines }: { lines: string[] }) {
  const item = (line: string, i: number) => <li key={i}>{line}</li>;
  // A closing "…and more" line (the server's, or ours past the bound) is not a problem of its own.
  const more = lines.at(-1)?.startsWith("…") ?? false;
  const counted = more ? lines.length - 1 : lines.length;
  return (
    <>
      <p>
        {counted}
        {more ? "+" : ""} problem{counted === 1 && !more ? "" : "s"}:
      </p>
      <ul class="problems" data-testid="problems">
        {lines.slice(0, PROBLEMS_OPEN).map(item)}
      </ul>
      {lines.length > PROBLEMS_OPEN && (
        <details class="problems-more">
          <summary>The other {lines.length - PROBLEMS_OPEN}</summary>
          <ul class="problems">{lines.slice(PROBLEMS_OPEN).map((l, i) => item(l, i + PROBLEMS_OPEN))}</ul>
        </details>
      )}
    </>
  );
}

/** A field's own problem, under it; the input names it with aria-describedby and aria-invalid. */
export function FieldError({ id, problem }: { id: string; problem: string | undefined }) {
  return problem ? (
    <p id={id} class="field-error">
      {problem}
    </p>
  ) : null;
}

/** The attributes that tie an input to its FieldError. */
export const invalidProps = (errorId: string, problem: string | undefined) =>
  problem ? { "aria-invalid": true, "aria-describedby": errorId } : {};

/** Loading, failed or ready. */
export function Loading<T>({ state, children }: { state: Loaded<T>; children: (data: T) => ComponentChildren }) {
  if (state.error)
    return (
      <div class="note error" role="alert">
        {describeError(state.error)}
      </div>
    );
  if (state.data === undefined) return <p class="muted">Loading…</p>;
  return <>{children(state.data)}</>;
}

/**
 * A table. On a narrow screen each row becomes a card, each cell under its heading (the cell's `data-label`),
 * so the cells that identify a row and every button stay on the screen; nothing scrolls sideways.
 */
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

/** A status as a coloured pill: `value` picks the colour, `label` (default the value) is what it says. */
export function Badge({ value, label }: { value: string; label?: string }) {
  return <span class={`badge badge-${value.replace(/[^a-z_]/g, "")}`}>{label ?? value}</span>;
}

/**
 * ARIA tabs: one tab stop for the list (the selected tab), arrow keys, Home and End move between tabs. The
 * caller keeps the choice in the URL, so `onSelect` usually navigates.
 */
export function Tabs<T extends string>({
  tabs,
  current,
  onSelect,
  label,
  idPrefix,
}: {
  tabs: { id: T; label: string }[];
  current: T;
  onSelect: (id: T) => void;
  label: string;
  idPrefix: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const moveTo = (i: number) => {
    const next = (i + tabs.length) % tabs.length;
    onSelect(tabs[next]!.id);
    refs.current[next]?.focus();
  };
  const keys: Record<string, (i: number) => number> = {
    ArrowRight: (i) => i + 1,
    ArrowLeft: (i) => i - 1,
    Home: () => 0,
    End: () => tabs.length - 1,
  };
  return (
    <div class="tabs" role="tablist" aria-label={label}>
      {tabs.map((t, i) => (
        <button
          type="button"
          role="tab"
          key={t.id}
          id={`${idPrefix}-tab-${t.id}`}
          ref={(el) => {
            refs.current[i] = el;
          }}
          class={t.id === current ? "tab active" : "tab"}
          aria-selected={t.id === current}
          aria-controls={`${idPrefix}-panel`}
          tabIndex={t.id === current ? 0 : -1}
          onClick={() => onSelect(t.id)}
          onKeyDown={(e) => {
            const step = keys[e.key];
            if (!step) return;
            e.preventDefault();
            moveTo(step(i));
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}

/** The panel of a Tabs list with the same `idPrefix`. */
export function TabPanel({
  idPrefix,
  current,
  children,
}: {
  idPrefix: string;
  current: string;
  children: ComponentChildren;
}) {
  return (
    <div role="tabpanel" id={`${idPrefix}-panel`} aria-labelledby={`${idPrefix}-tab-${current}`}>
      {children}
    </div>
  );
}

/** The browser tab's title: the page's own name first. */
export function useTitle(title: string | undefined) {
  useEffect(() => {
    if (title) document.title = `${title} · ext emulator`;
  }, [title]);
}

/** Where a page sits, by names; the last item is the page itself. */
export function Crumbs({ items }: { items: { label: string; href?: string }[] }) {
  return (
    <nav class="crumbs" aria-label="Breadcrumb">
      <ol>
        {items.map((item, i) => (
          <li key={`${i}-${item.label}`}>
            {item.href && i < items.length - 1 ? (
              <a href={item.href}>{item.label}</a>
            ) : (
              <span aria-current={i === items.length - 1 ? "page" : undefined}>{item.label}</span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

/** Why review rejected a version (the API's `rejectReason`), under its status. */
export function RejectReason({ reason }: { reason: string }) {
  return (
    <p class="reject-reason" data-testid="reject-reason">
      <span class="muted">Reason:</span> {reason}
    </p>
  );
}

/** An id with a button that copies it: on one line where the screen has room, wrapped only where it has not. */
export function IdCard({ label, id }: { label: string; id: string }) {
  return (
    <p class="id-card">
      <span class="id-label">{label}</span> <code class="id-value">{id}</code>{" "}
      <CopyButton text={id} label={`Copy ${label.toLowerCase()}`} />
    </p>
  );
}
