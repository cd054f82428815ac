/**
 * A problem in what the user gave (a flag, a target, a manifest): the CLI exits 2 on it. `helpHint` false for
 * a problem in the user's input files (a fixture), where pointing at `--help` would not help.
 */
export class UsageError extends Error {
  override name = "UsageError";
  constructor(
    message: string,
    readonly helpHint = true,
  ) {
    super(message);
  }
}
