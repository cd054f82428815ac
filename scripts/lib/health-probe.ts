/**
 * GET /healthz asked again and again by a process of its own (Python: the caller's busy event loop adds nothing),
 * one at a time on one keep-alive connection, 10 ms apart, while `work` runs: how a server answers its other
 * clients meanwhile. The bench times the answers (bench/sections/hostile-uploads.ts); a test checks that every
 * one was answered (test/binary/bundle-memory.slow.test.ts).
 */

const PROBE = `
import http.client, sys, threading, time
host, port = sys.argv[1], int(sys.argv[2])
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
conn = http.client.HTTPConnection(host, port)
while not stop.is_set():
    start = time.perf_counter()
    conn.request("GET", "/healthz")
    res = conn.getresponse()
    res.read()
    print(res.status, round((time.perf_counter() - start) * 1000, 2), flush=True)
    time.sleep(0.01)
`;

export interface ProbeAnswer {
  status: number;
  /** From the request sent to the answer read, in ms. */
  ms: number;
}

/** Starts the probe on `url`'s host and port, runs `work` once it has had a first answer, stops it; every answer. */
export async function whileProbing(url: string, work: () => Promise<unknown>): Promise<ProbeAnswer[]> {
  const { hostname, port } = new URL(url);
  const probe = Bun.spawn(["python3", "-c", PROBE, hostname, port], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const lines: string[] = [];
  let firstAnswer: () => void = () => {};
  const answered = new Promise<void>((resolve) => (firstAnswer = resolve));
  const reading = (async () => {
    let buffered = "";
    for await (const chunk of probe.stdout.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      const complete = buffered.split("\n");
      buffered = complete.pop()!;
      lines.push(...complete.filter(Boolean));
      if (lines.length) firstAnswer();
    }
    firstAnswer();
  })();
  try {
    await answered;
    await work();
  } finally {
    probe.stdin.end();
    await probe.exited;
    await reading;
  }
  return lines.map((line) => {
    const [status, ms] = line.split(" ");
    return { status: Number(status), ms: Number(ms) };
  });
}
