// A clock the tests can move forward (over the control API) so that token expiry and messaging windows
// can be exercised without waiting.

export interface SandboxClock {
  now(): number;
  advance(ms: number): number;
  offsetMs(): number;
}

export function createClock(base: () => number = Date.now): SandboxClock {
  let offset = 0;
  return {
    now: () => base() + offset,
    advance(ms: number): number {
      offset += ms;
      return base() + offset;
    },
    offsetMs: () => offset,
  };
}
