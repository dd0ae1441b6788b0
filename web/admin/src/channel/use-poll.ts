import { useEffect, useRef } from 'react';

export interface PollOptions {
  /** A new key runs the tick at once (a new filter, page, or an action that changed things). */
  key?: string;
  /** false: run once per key, no repeating. */
  repeat?: boolean;
  enabled?: boolean;
}

/**
 * Runs `tick` now and then every `intervalMs` while the page is visible; a hidden tab stops
 * polling and catches up at once when shown again. A tick never overlaps the one before it.
 */
export function usePoll(tick: (signal: AbortSignal) => Promise<void>, intervalMs: number, options: PollOptions = {}): void {
  const { key = '', repeat = true, enabled = true } = options;
  const latest = useRef(tick);
  latest.current = tick;

  useEffect(() => {
    if (!enabled) return undefined;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let running = false;

    const schedule = () => {
      if (timer !== undefined) clearTimeout(timer);
      if (repeat && !controller.signal.aborted && document.visibilityState === 'visible') timer = setTimeout(() => void run(), intervalMs);
    };
    const run = async () => {
      if (running || controller.signal.aborted) return;
      running = true;
      try {
        await latest.current(controller.signal);
      } catch {
        // The tick shows its own errors; polling goes on.
      } finally {
        running = false;
        schedule();
      }
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') {
        if (repeat) void run();
      } else if (timer !== undefined) clearTimeout(timer);
    };
    document.addEventListener('visibilitychange', onVisibility);
    void run();
    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [intervalMs, enabled, key, repeat]);
}
