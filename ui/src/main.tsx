import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { DOCS_PATH } from "../../common/dashboard-links";
import { admin, handKeyToDocs, onLoginNeeded, onServerEnded } from "./api";
import { useLoad } from "./hooks";
import { AdminPage } from "./pages/admin";
import { EmptyState } from "./pages/empty-state";
import { ExtensionsPage } from "./pages/extensions";
import { KeysPage } from "./pages/keys";
import { LimitsPage } from "./pages/limits";
import { OverviewPage } from "./pages/overview";
import { ProfilePage } from "./pages/profile";
import { RequestsPage } from "./pages/requests";
import { href, useRoute } from "./router";
import "./styles.css";

/** The pages that act as the chosen account. */
const ACCOUNT_PAGES = ["", "keys", "extensions", "limits"];
/**
 * The pages that wait for the account list before they show: the account pages, and the admin page, whose
 * overrides and extension-status tabs act as the chosen account (shown before it, they would show an empty
 * account's, then reload, and drop what was typed meanwhile).
 */
const WAIT_FOR_ACCOUNTS = [...ACCOUNT_PAGES, "admin"];

const NAV = [
  { id: "", label: "Overview" },
  { id: "keys", label: "API keys" },
  { id: "extensions", label: "Extensions" },
  { id: "limits", label: "Developer limits" },
  { id: "admin", label: "Admin" },
  { id: "requests", label: "Requests" },
  { id: "profile", label: "Profile" },
] as const;

const ACCOUNT_KEY = "ext-dashboard-account";
/** `?account=acc_…` before the hash route: every hash link of the page keeps it. */
const ACCOUNT_PARAM = "account";
const accountInUrl = () => new URLSearchParams(location.search).get(ACCOUNT_PARAM);
function showAccountInUrl(id: string) {
  if (accountInUrl() === id) return;
  const url = new URL(location.href);
  url.searchParams.set(ACCOUNT_PARAM, id);
  history.replaceState(history.state, "", url);
}

/** What a tab shows once the server that logged it in has stopped: how to log in at its new address, nothing to fill in. */
function ServerEnded() {
  return (
    <main id="main" class="narrow">
      <h1>This emulator has stopped</h1>
      <p>
        The server this tab was logged in to has stopped or restarted (or ended this tab's connection), and each start
        serves the dashboard at a new address. Run <code>ext dashboard</code> in the server's folder to log in at the
        current one. This tab sends nothing more: whatever answers at this address now may be another program.
      </p>
    </main>
  );
}

/**
 * No session, or one this server never accepted. Nothing to fill in: the dashboard never asks for the admin
 * token, so a page at this address that does (a stale tab reloaded from whoever holds the port now) is not it.
 */
function NotLoggedIn() {
  return (
    <main id="main" class="narrow">
      <h1>Open the dashboard</h1>
      <p>
        This browser is not logged in to this emulator. Run <code>ext dashboard</code> in the server's folder: it opens
        a page in your browser that logs it in, for as long as the server runs (<code>--no-browser</code> names the page
        to open by hand). Each such page works once, within 15 minutes.
      </p>
      <p>
        The dashboard never asks for the admin token. A page at this address that does is not this emulator's: close it.
      </p>
    </main>
  );
}

/**
 * The API reference (/docs, served by the emulator), in this tab: the account's dashboard key goes with it
 * (sessionStorage) and fills in its "try it". A new tab or window opens it without the key.
 */
function DocsLink({ account }: { account: string }) {
  return (
    <a
      href={DOCS_PATH}
      onClick={(e) => {
        if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        void handKeyToDocs(account).finally(() => location.assign(DOCS_PATH));
      }}
    >
      API reference
    </a>
  );
}

function App() {
  const route = useRoute();
  const [needLogin, setNeedLogin] = useState(false);
  const [serverGone, setServerGone] = useState(false);
  useEffect(() => onServerEnded(() => setServerGone(true)), []);
  useEffect(() => onLoginNeeded(() => setNeedLogin(true)), []);
  const accounts = useLoad(() => admin((c) => c.GET("/_emulator/accounts")).then((r) => r.accounts), []);
  const [account, setAccount] = useState<string>(() => accountInUrl() ?? sessionStorage.getItem(ACCOUNT_KEY) ?? "");
  const list = accounts.data ?? [];
  const current = list.some((a) => a.id === account) ? account : (list[0]?.id ?? "");
  // A link (or this tab's memory) naming an account this emulator does not have: said, not silently replaced.
  const missing = accounts.data && account && account !== current ? account : null;
  const section = route[0] ?? "";
  // The URL names the account shown, so a reload or a shared link opens the same one.
  useEffect(() => {
    if (current) showAccountInUrl(current);
  }, [current]);

  if (serverGone) return <ServerEnded />;
  if (needLogin) return <NotLoggedIn />;
  const props = { account: current, accounts: list, refreshAccounts: accounts.reload, route };
  const noAccount = accounts.data !== undefined && accounts.data !== null && list.length === 0;
  // The account pages wait for the account list: before it, they would call the API with an empty id.
  const accountsPending = accounts.data === undefined && !accounts.error;
  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById("main")?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <p class="brand">ext emulator</p>
        <nav aria-label="Sections">
          <ul>
            {NAV.map((n) => (
              <li key={n.id}>
                <a href={href(n.id)} aria-current={section === n.id ? "page" : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
            <li>
              <DocsLink account={current} />
            </li>
          </ul>
        </nav>
        <div class="account-picker">
          <label for="account">Account</label>
          <select
            id="account"
            value={current}
            onChange={(e) => {
              setAccount(e.currentTarget.value);
              sessionStorage.setItem(ACCOUNT_KEY, e.currentTarget.value);
            }}
          >
            {list.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name} ({a.id})
              </option>
            ))}
          </select>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {missing && current && (
          <p class="note" role="status" data-testid="account-missing">
            There is no account {missing} here; showing {current}.
          </p>
        )}
        {/* The account pages need an account: with none, they would call the API with an empty id. */}
        {accountsPending && WAIT_FOR_ACCOUNTS.includes(section) && <p class="muted">Loading…</p>}
        {noAccount && ACCOUNT_PAGES.includes(section) && <EmptyState onCreated={accounts.reload} />}
        {!noAccount && !accountsPending && section === "" && <OverviewPage {...props} />}
        {!noAccount && !accountsPending && section === "keys" && <KeysPage {...props} />}
        {!noAccount && !accountsPending && section === "extensions" && <ExtensionsPage {...props} />}
        {!noAccount && !accountsPending && section === "limits" && <LimitsPage {...props} />}
        {!accountsPending && section === "admin" && <AdminPage {...props} />}
        {section === "requests" && <RequestsPage {...props} />}
        {section === "profile" && <ProfilePage />}
        {!NAV.some((n) => n.id === section) && (
          <>
            <h1>Not found</h1>
            <p>
              No page here. <a href={href("")}>Back to the overview</a>.
            </p>
          </>
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
