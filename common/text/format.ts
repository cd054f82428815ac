/** Sizes and counts as the CLI prints them and the dashboard shows them. */

const KB = 1024;
const MB = 1024 * 1024;

/** "214 B", "12.3 KB", "4.0 MB": a small bundle must not read "0.0 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < KB) return `${bytes} B`;
  if (bytes < MB) return `${(bytes / KB).toFixed(1)} KB`;
  return `${(bytes / MB).toFixed(1)} MB`;
}

/** "1 file", "2 files". */
export function plural(count: number, one: string, many: string = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
