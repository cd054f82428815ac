/**
 * The `Emulator` methods that are plain API calls, written once on the typed clients for both helpers: the
 * Bun one (in process) and the Node one (a child process) differ only in how they start, stop and deploy.
 */
import type { EmulatorConnection } from "./emulator";
import { type AdminClient, type ApiClient, type ClockState, type Extension, unwrap } from "./index";

/** Everything of EmulatorConnection that is a call on `client` or `admin`. */
export type EmulatorCalls = Omit<
  EmulatorConnection,
  "baseUrl" | "apiKey" | "adminUrl" | "url" | "adminToken" | "env" | "client" | "admin" | "deploy"
>;

export function emulatorCalls(client: ApiClient, admin: AdminClient): EmulatorCalls {
  const clock = async (body: { advanceSeconds: number } | { set: string; freeze?: boolean }): Promise<ClockState> =>
    unwrap(await admin.POST("/_emulator/clock", { body }));
  return {
    // POST answers with five fields; the read back makes the result an `Extension` a test can pass on.
    createExtension: async (input): Promise<Extension> => {
      const { id } = unwrap(await client.POST("/developer/v1/extensions", { body: input })).extension;
      return unwrap(await client.GET("/developer/v1/extensions/{id}", { params: { path: { id } } }));
    },
    approveVersion: async (versionId) =>
      unwrap(await admin.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } })),
    rejectVersion: async (versionId, reason) =>
      unwrap(
        await admin.POST("/_emulator/versions/{versionId}/reject", {
          params: { path: { versionId } },
          body: { reason },
        }),
      ),
    addInstalls: async (extensionId, what = {}) =>
      unwrap(
        await admin.POST("/_emulator/extensions/{id}/installs", {
          params: { path: { id: extensionId } },
          body: typeof what === "number" ? { count: what } : what,
        }),
      ),
    rollout: async (extensionId, what = {}) =>
      unwrap(
        await admin.POST("/_emulator/extensions/{id}/rollouts", { params: { path: { id: extensionId } }, body: what }),
      ),
    setOverride: async (target, limits) =>
      "extensionId" in target
        ? unwrap(
            await admin.PUT("/_emulator/overrides/extensions/{id}", {
              params: { path: { id: target.extensionId } },
              body: limits,
            }),
          )
        : unwrap(
            await admin.PUT("/_emulator/overrides/accounts/{id}", {
              params: { path: { id: target.accountId } },
              body: limits,
            }),
          ),
    injectFault: async (rule) => unwrap(await admin.POST("/_emulator/faults", { body: rule })).fault,
    advanceClock: (seconds) => clock({ advanceSeconds: seconds }),
    setClock: (at, options = {}) =>
      clock({
        set: typeof at === "string" ? at : at.toISOString(),
        ...(options.freeze === undefined ? {} : { freeze: options.freeze }),
      }),
    requests: async (limit) =>
      unwrap(await admin.GET("/_emulator/requests", { params: { query: limit === undefined ? {} : { limit } } }))
        .requests,
    profile: async () => unwrap(await admin.GET("/_emulator/state")).profile,
    reset: async () => {
      unwrap(await admin.POST("/_emulator/reset", {}));
    },
    snapshot: async () => ({ id: unwrap(await admin.POST("/_emulator/snapshots", {})).snapshot.id }),
    restore: async (snapshot) => {
      unwrap(await admin.POST("/_emulator/snapshots/{id}/restore", { params: { path: { id: snapshot.id } } }));
    },
  };
}

/**
 * Why `startEmulator` refuses a fixture: it must hand back a key that works. An export keeps keys made through
 * the API as keyed hashes, which authenticate only with the data directory they came from. `exportDir`: the
 * export directory the fixture was read from.
 */
export function noPlaintextKeyMessage(exportDir: string | null): string {
  const why = exportDir
    ? `the export ${exportDir} has no active API key with a plaintext "key" (keys created through the API are exported as hashes, valid only with the data directory they came from); add one to an account's apiKeys in ${exportDir}/fixture.json, e.g. {"name": "tests", "key": "ext_test_0123456789abcdef", "scopes": ["*"]}`
    : 'the fixture has no active API key with a plaintext "key"; add one';
  return `${why} so startEmulator can return it`;
}
