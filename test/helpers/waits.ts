// Waiting for a condition the test cannot be told about (another process's writes): polled
// briefly, bounded, and named in the error. For events that arrive in this process, see event-log.ts.

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * A wait that proves something does NOT happen (no second call, no try before it is due): nothing
 * signals an absence, so the test gives it `ms` and then asserts. Every such fixed wait in the
 * tests goes through here with its reason, so it reads apart from a wait FOR something, which
 * polls with `eventually` instead.
 */
export async function expectQuiet(ms: number, reason: string): Promise<void> {
  if (!reason.trim()) throw new Error('expectQuiet: say what the wait proves does not happen');
  await new Promise((resolve) => setTimeout(resolve, ms));
}
