import { defineCommand } from "citty";
import { openApiDocument } from "../../../server";

export default defineCommand({
  meta: {
    name: "openapi",
    description:
      "Print the OpenAPI document (what /openapi.json serves) without starting a server, for code generators",
  },
  args: {
    yaml: { type: "boolean", description: "Print YAML instead of JSON" },
  },
  async run({ args }) {
    // `ext openapi | head` closes the pipe early: that is the reader's choice, not an error.
    process.stdout.on("error", (e: NodeJS.ErrnoException) => process.exit(e.code === "EPIPE" ? 0 : 1));
    const doc = await openApiDocument();
    process.stdout.write(args.yaml ? `${Bun.YAML.stringify(doc, null, 2)}\n` : `${JSON.stringify(doc, null, 2)}\n`);
  },
});
