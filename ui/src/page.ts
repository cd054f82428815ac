import type { Account } from "./api";

/** What every page gets from the shell: the selected account, all accounts, and the hash route. */
export interface PageProps {
  account: string;
  accounts: Account[];
  refreshAccounts(): void;
  route: string[];
}

/** The selected account's name (its id until the list has loaded). */
export const accountName = (p: Pick<PageProps, "account" | "accounts">) =>
  p.accounts.find((a) => a.id === p.account)?.name ?? p.account;
