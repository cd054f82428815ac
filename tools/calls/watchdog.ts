/**
 * The per-request timeout of every outbound call: it runs only while the caller waits on the server —
 * connecting, a write the server does not take, the answer after the last byte of the request was sent, the
 * next chunk of an answer being read. Until the answer begins (`answering()`), it starts again whenever the
 * server moves, so an upload counts from its last byte sent. From then on it is a deadline: all the time
 * spent waiting on the answer — its head and every chunk of its body — adds up to at most `ms`, so a server
 * that trickles a byte a second is cut as one that stays silent is, while a slow reader of the answer is not.
 */
export class Watchdog {
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** When the running wait began, and how much of `ms` the answer's earlier waits spent. */
  private since = 0;
  private spent = 0;
  private answer = false;
  private waits = 0;
  private expired = false;
  private off = false;
  private readonly cuts: (() => void)[] = [];

  constructor(
    readonly ms: number,
    onExpire: () => void = () => {},
  ) {
    this.cuts.push(onExpire);
  }

  /** Also does `cut` when the wait runs out: what is being waited on (a socket) is closed by it. */
  also(cut: () => void): void {
    this.cuts.push(cut);
  }

  /** True once the wait ran out (the request was cut). */
  get fired(): boolean {
    return this.expired;
  }

  /** Waits on `work` with the timer running; a wait nested in another does not restart it. */
  async during<T>(work: Promise<T>): Promise<T> {
    this.arm();
    try {
      return await work;
    } finally {
      this.disarm();
    }
  }

  arm(): void {
    if (this.waits++ === 0 && !this.off) this.start();
  }

  disarm(): void {
    if (this.waits > 0 && --this.waits === 0) this.clear();
  }

  /** The server moved (bytes arrived, or it took bytes): a running wait starts again, until the answer begins. */
  touch(): void {
    if (this.answer) return;
    this.spent = 0;
    if (this.waits > 0 && !this.off) this.start();
  }

  /** The request was sent: from here every wait on the answer counts against one budget of `ms`. */
  answering(): void {
    const running = this.timer !== null;
    if (running) clearTimeout(this.timer!);
    this.timer = null;
    this.answer = true;
    this.spent = 0;
    if (running) this.start();
  }

  /** The request is over: nothing more is timed. */
  stop(): void {
    this.waits = 0;
    this.clear();
  }

  /** A live stream has begun (`text/event-stream`): it is meant to wait for events, so nothing more is timed. */
  retire(): void {
    this.off = true;
    this.clear();
  }

  private start(): void {
    this.clear();
    if (this.expired) return;
    this.since = performance.now();
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.expired = true;
        for (const cut of this.cuts) cut();
      },
      Math.max(0, this.ms - this.spent),
    );
  }

  private clear(): void {
    if (this.timer === null) return;
    clearTimeout(this.timer);
    this.timer = null;
    if (this.answer) this.spent += performance.now() - this.since;
  }
}
