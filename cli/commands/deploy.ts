import { defineCommand } from "citty";
export default defineCommand({ meta: { name: "deploy", description: "Deploy (work in progress)" }, run() {} });
