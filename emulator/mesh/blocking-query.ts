/**
 * Blocking queries of the mesh emulator: `?index=N&wait=<duration>` holds the answer until the watched
 * state changes or the wait expires. Waiters listen on an event emitter; nothing polls.
 */
import { EventEmitter } from "node:events";
import { badRequest } from "./errors";

/** The spec leaves the header unnamed; the emulator carries the index of blocking endpoints in this one. */
export const BLOCKING_INDEX_HEADER = "X-Mesh-Index";

const DEFAULT_WAIT_MS = 5 * 60_000;
const MAX_WAIT_MS = 10 * 60_000;

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Parses a Go duration ("500ms", "10s", "1m30s"); a bare number counts as seconds. */
export function parseDuration(text: string): number | undefined {
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const part = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let consumed = 0;
  while (consumed < text.length) {
    part.lastIndex = consumed;
    const match = part.exec(text);
    if (!match) return undefined;
    total += Number(match[1]) * UNIT_MS[match[2]];
    consumed = part.lastIndex;
  }
  return text.length > 0 ? total : undefined;
}

export interface BlockingParams {
  /** Absent when the request is not a blocking query. */
  index?: number;
  waitMs: number;
}

/**
 * Reads `index` and `wait`; the wait defaults to 5 minutes and is capped at 10. The real service adds a
 * random jitter of up to wait/16; the emulator does not, so waits are exact.
 */
export function parseBlockingParams(query: Record<string, unknown>): BlockingParams {
  let index: number | undefined;
  if (query.index !== undefined && query.index !== "") {
    index = Number(query.index);
    if (!Number.isSafeInteger(index) || index < 0) throw badRequest("Invalid index");
  }
  let waitMs = DEFAULT_WAIT_MS;
  if (query.wait !== undefined && query.wait !== "") {
    const parsed = parseDuration(String(query.wait));
    if (parsed === undefined) throw badRequest("Invalid wait time");
    waitMs = parsed;
  }
  return { index, waitMs: Math.min(waitMs, MAX_WAIT_MS) };
}

export type WaitOutcome = "changed" | "timeout" | "aborted";

/** Topics that wake waiters; `shutdown` releases every waiter so the server can close. */
export class ChangeNotifier {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  notify(topic: string): void {
    this.emitter.emit(topic);
  }

  /** Number of blocking queries currently parked. */
  get waiting(): number {
    return this.emitter.listenerCount("shutdown");
  }

  releaseAll(): void {
    this.emitter.emit("shutdown");
  }

  /** Resolves when one of `topics` is notified, after `timeoutMs`, or when `abort` fires. */
  waitFor(topics: string[], timeoutMs: number, abort?: EventEmitter, abortEvent = "close"): Promise<WaitOutcome> {
    return new Promise((resolve) => {
      const finish = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        for (const topic of topics) this.emitter.off(topic, onChange);
        this.emitter.off("shutdown", onAbort);
        abort?.off(abortEvent, onAbort);
        resolve(outcome);
      };
      const onChange = () => finish("changed");
      const onAbort = () => finish("aborted");
      const timer = setTimeout(() => finish("timeout"), Math.max(0, timeoutMs));
      for (const topic of topics) this.emitter.once(topic, onChange);
      this.emitter.once("shutdown", onAbort);
      abort?.once(abortEvent, onAbort);
    });
  }
}
