/**
 * The version upload's multipart body. The document types the `bundle` field as a binary string; what is
 * really sent is a Blob (as FormData) or a stream (as a multipart stream built here, so a large bundle is
 * never held in memory, with a Content-Length when its size is known).
 */
import type { VersionSubmission } from "./models";

export interface BundleStream {
  stream: ReadableStream<Uint8Array>;
  /** Bytes the stream will give: lets the request carry a Content-Length, so the server can refuse early. */
  size?: number;
}

export interface VersionUploadInput {
  version: string;
  changelog?: string;
  bundle: Blob | BundleStream;
  /** Default `bundle.tar.gz`. */
  filename?: string;
}

/** Spread into the options of `POST /developer/v1/extensions/{id}/versions`. */
export interface VersionUpload {
  body: VersionSubmission;
  bodySerializer: (body: VersionSubmission) => FormData | ReadableStream<Uint8Array>;
  headers: Record<string, string>;
  /** Needed by fetch for a stream body. */
  duplex?: "half";
}

const GZIP = "application/gzip";
// A quote, backslash or line break in a header parameter would end it: quoted or dropped.
const quote = (s: string) => s.replace(/["\\\r\n]/g, (c) => (c === '"' ? "%22" : c === "\\" ? "\\\\" : ""));

export function versionUpload(input: VersionUploadInput): VersionUpload {
  const filename = input.filename ?? "bundle.tar.gz";
  const fields: [string, string][] = [["version", input.version]];
  if (input.changelog !== undefined) fields.push(["changelog", input.changelog]);
  // The generated type says string; the serializer below is the only reader of this field.
  const body = { version: input.version, changelog: input.changelog, bundle: "" } as VersionSubmission;
  if (input.changelog === undefined) delete body.changelog;
  const bundle = input.bundle;
  if (bundle instanceof Blob) {
    return {
      body,
      headers: {},
      bodySerializer: () => {
        const form = new FormData();
        for (const [name, value] of fields) form.append(name, value);
        form.append("bundle", bundle.type ? bundle : new Blob([bundle], { type: GZIP }), filename);
        return form;
      },
    };
  }
  const boundary = `----ext-${randomHex(12)}`;
  const encoder = new TextEncoder();
  let head = "";
  for (const [name, value] of fields)
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`;
  head += `--${boundary}\r\nContent-Disposition: form-data; name="bundle"; filename="${quote(filename)}"\r\nContent-Type: ${GZIP}\r\n\r\n`;
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(`\r\n--${boundary}--\r\n`);
  const headers: Record<string, string> = { "content-type": `multipart/form-data; boundary=${boundary}` };
  if (bundle.size !== undefined) headers["content-length"] = String(headBytes.length + bundle.size + tailBytes.length);
  return { body, headers, duplex: "half", bodySerializer: () => framed(headBytes, bundle.stream, tailBytes) };
}

function framed(head: Uint8Array, inner: ReadableStream<Uint8Array>, tail: Uint8Array): ReadableStream<Uint8Array> {
  const reader = inner.getReader();
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(head);
        return;
      }
      const { value, done } = await reader.read();
      if (!done) {
        controller.enqueue(value);
        return;
      }
      controller.enqueue(tail);
      controller.close();
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function randomHex(bytes: number): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return Array.from(buf, (b) => b.toString(16).padStart(2, "0")).join("");
}
