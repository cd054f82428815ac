import { defineCommand } from "citty";
export default defineCommand({ meta: { name: "proxy", description: "todo" }, run() {} });
