import { defineConfig } from "drizzle-kit";

// drizzle-kit is used for `generate` only; the emulator runs the SQL through src/db/migrations.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema.ts",
  out: "./drizzle",
});
