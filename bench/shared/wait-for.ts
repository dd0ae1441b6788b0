/**
 * Waits, bounded, until `done()` holds: woken early by any function pushed onto `wakers` (a
 * receiver calls them as requests arrive), else every 200 ms. False when the time ran out.
 */
export async function waitUntil(done: () => boolean, wakers: Array<() => void>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 200);
      wakers.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
  return true;
}
