// Files imported `with { type: "text" }` are strings, embedded into the compiled binary.
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "*/dist/browser/standalone.js" {
  const text: string;
  export default text;
}
declare module "*/Containerfile" {
  const text: string;
  export default text;
}
