import type pg from 'pg';

/**
 * Calls `listener` on every NOTIFY of `channel`, on a connection of its own (it holds the
 * connection while it listens), and connects again if the connection drops, calling `listener`
 * once connected (anything announced meanwhile). Returns how to stop.
 */
export function listen(client: () => pg.Client, channel: string, listener: () => void): () => Promise<void> {
  let closed = false;
  let stop: () => void = () => undefined;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const run = async () => {
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
          await Promise.race([ended, stopped]);
        }
      } catch {
        // refused or lost: try again shortly
      }
      await c.end().catch(() => undefined);
      if (!closed) await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 1000))]);
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
