// Sleeps that end early when the stand-in closes, so a hanging fault never keeps a test process alive.

export class Sleeper {
  private readonly controller = new AbortController();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.controller.signal.aborted) return resolve();
      const timer = setTimeout(done, ms);
      const signal = this.controller.signal;
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done);
    });
  }

  cancelAll(): void {
    this.controller.abort();
  }
}
