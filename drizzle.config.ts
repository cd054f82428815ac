import { defineConfig } from "drizzle-kit";

// drizzle-kit is used for `generate` only; the emulator runs the SQL through server/db/migrations.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./server/db/schema.ts",
  out: "./drizzle",
});
