import type { Account } from "./api";

/** What every page gets from the shell: the selected account, all accounts, and the hash route. */
export interface PageProps {
  account: string;
  accounts: Account[];
  refreshAccounts(): void;
  route: string[];
}
