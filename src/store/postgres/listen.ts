import type pg from 'pg';

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 10_000;

/**
 * Calls `listener` on every NOTIFY of `channel`, on a connection of its own (it holds the
 * connection while it listens), and connects again if the connection drops (after a second,
 * doubling up to RETRY_MAX_MS while the database stays away), calling `listener` once connected
 * (anything announced meanwhile). Returns how to stop.
 */
export function listen(client: () => pg.Client, channel: string, listener: () => void): () => Promise<void> {
  let closed = false;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const run = async () => {
    let wait = RETRY_FIRST_MS;
    while (!closed) {
      const c = client();
      const ended = new Promise<void>((resolve) => {
        c.once('end', resolve);
        c.on('error', () => resolve()); // a lost connection: connect again below
      });
      c.on('notification', () => listener());
      try {
        await c.connect();
        if (!closed) {
          await c.query(`LISTEN ${channel}`);
          listener(); // anything announced while not listening
          wait = RETRY_FIRST_MS;
          await Promise.race([ended, stopped]);
        }
      } catch {
        // refused or lost: try again shortly
      }
      await c.end().catch(() => undefined);
      if (closed) break;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stopped, new Promise((resolve) => (timer = setTimeout(resolve, wait)))]);
      clearTimeout(timer);
      wait = Math.min(wait * 2, RETRY_MAX_MS);
    }
  };
  const running = run();
  return async () => {
    closed = true;
    stop();
    await running;
  };
}

/** Sends a NOTIFY on `channel` at most once per event-loop turn. */
export function announcer(notify: (channel: string) => Promise<unknown>, channel: string): () => void {
  let announcing = false;
  return () => {
    if (announcing) return;
    announcing = true;
    setImmediate(() => {
      announcing = false;
      notify(channel).catch(() => undefined);
    });
  };
}
