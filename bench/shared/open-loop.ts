/**
 * An open-loop load: `total` calls leave on a fixed schedule at `rate` per second whatever the
 * answers' latency, so a slow answer does not slow the offered rate down.
 */

/** Starts `send(n)` for n = 0 … total-1 on schedule and waits for every call; answers the seconds the schedule took. */
export async function openLoop(rate: number, total: number, send: (n: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  const inflight = new Set<Promise<void>>();
  for (let n = 0; n < total; n++) {
    const due = started + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const p = send(n).finally(() => inflight.delete(p));
    inflight.add(p);
  }
  const offeredSeconds = (performance.now() - started) / 1000;
  await Promise.all(inflight);
  return offeredSeconds;
}
