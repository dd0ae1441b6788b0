/** A signal's listener; a signal without a payload (`void`) is emitted and heard without one. */
export type SignalListener<P> = (payload: P) => void;

type PayloadArgs<P> = [P] extends [void] ? [] : [P];

/**
 * Named, typed in-process signals: what one part of the service tells the others after a commit
 * (a message stored, a channel changed, work due), each name with its payload type in one map.
 * Emitters and listeners know the map, not each other. Listeners run synchronously in the order
 * they were added; one that throws is reported to `onError` and does not stop the others, nor
 * the emitter (which has already committed what it reports).
 */
export class Signals<M> {
  private readonly listeners = new Map<keyof M, Set<(payload?: unknown) => void>>();

  constructor(private readonly onError: (error: unknown, name: keyof M) => void = () => undefined) {}

  /** Adds a listener; answers the function that removes it. */
  on<K extends keyof M>(name: K, listener: SignalListener<M[K]>): () => void {
    let set = this.listeners.get(name);
    if (!set) {
      set = new Set();
      this.listeners.set(name, set);
    }
    const held = listener as (payload?: unknown) => void;
    set.add(held);
    return () => {
      set.delete(held);
    };
  }

  emit<K extends keyof M>(name: K, ...payload: PayloadArgs<M[K]>): void {
    const set = this.listeners.get(name);
    if (!set) return;
    for (const listener of set) {
      try {
        listener(payload[0]);
      } catch (error) {
        this.onError(error, name);
      }
    }
  }
}
