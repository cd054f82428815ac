/**
 * A multipart/form-data body built as a stream: text fields, then one file read from disk chunk by chunk.
 * The whole length is known up front (fields + file size + boundaries), so the request carries a real
 * Content-Length and the server can refuse an oversized upload before reading it; the file is never held
 * in memory.
 */
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";

export interface MultipartFile {
  field: string;
  path: string;
  filename: string;
  contentType: string;
}

export interface MultipartBody {
  contentType: string;
  contentLength: number;
  /** A fresh stream each call (a retried request needs its own). `onBytes` sees the file's bytes go by. */
  stream(onBytes?: (sent: number, total: number) => void): ReadableStream<Uint8Array>;
}

const quote = (s: string) => s.replace(/["\\\r\n]/g, (c) => (c === '"' ? "%22" : c === "\\" ? "\\\\" : ""));

export function multipartBody(fields: Record<string, string>, file: MultipartFile): MultipartBody {
  const boundary = `----ext-${randomBytes(12).toString("hex")}`;
  const encoder = new TextEncoder();
  let head = "";
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="${quote(file.field)}"; filename="${quote(file.filename)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`;
  const headBytes = encoder.encode(head);
  const tailBytes = encoder.encode(`\r\n--${boundary}--\r\n`);
  const fileSize = statSync(file.path).size;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: headBytes.length + fileSize + tailBytes.length,
    stream(onBytes) {
      let reader: { read(): Promise<{ value?: Uint8Array; done: boolean }>; cancel(): Promise<void> } | null = null;
      let sent = 0;
      let phase: "head" | "file" | "done" = "head";
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (phase === "head") {
            controller.enqueue(headBytes);
            phase = "file";
            reader = (Bun.file(file.path).stream() as ReadableStream<Uint8Array>).getReader() as unknown as NonNullable<
              typeof reader
            >;
            return;
          }
          if (phase === "file") {
            const { value, done } = await reader!.read();
            if (!done && value) {
              sent += value.length;
              onBytes?.(sent, fileSize);
              controller.enqueue(value);
              return;
            }
            controller.enqueue(tailBytes);
            phase = "done";
            controller.close();
          }
        },
        cancel() {
          void reader?.cancel();
        },
      });
    },
  };
}
