/** Wall-clock time for the parity tools (run stamps, elapsed time): the one place they read it. */
export const nowIso = (): string => new Date().toISOString();
export const nowMs = (): number => Date.now();
