// Events that arrive over time (socket messages, webhook calls) and waiting for one of them, so a
// test can await an event or assert that one never came.

export class EventLog<E extends { event: string }> {
  /** Every event, in order of arrival. */
  readonly events: E[] = [];
  private readonly waiters = new Set<() => boolean>();

  push(e: E): void {
    this.events.push(e);
    for (const w of [...this.waiters]) w();
  }

  /**
   * The first event from index `from` on that `match` picks, waiting up to `timeoutMs`; on timeout
   * the error names what was awaited (`no <what> within …`) and every event that came.
   */
  waitFor(match: (e: E) => boolean, options: { what: string; timeoutMs: number; from?: number }): Promise<E> {
    const { what, timeoutMs, from = 0 } = options;
    return new Promise((resolve, reject) => {
      const look = () => {
        const hit = this.events.slice(from).find(match);
        if (!hit) return false;
        this.waiters.delete(look);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(look);
        reject(new Error(`no ${what} within ${timeoutMs} ms (got: ${this.events.map((e) => e.event).join(', ') || 'nothing'})`));
      }, timeoutMs);
      if (!look()) this.waiters.add(look);
    });
  }
}
