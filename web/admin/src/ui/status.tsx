// What a page shows while it loads and when loading fails, and the data-loading hook behind it.
import { useCallback, useEffect, useRef, useState, type DependencyList, type ReactNode } from 'react';
import { messageOf } from '../api';
import { Button } from './button';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      {label}
    </p>
  );
}

export function ErrorMessage({ children, onRetry }: { children: ReactNode; onRetry?: () => void }) {
  return (
    <div className="message message-error" role="alert">
      <span>{children}</span>
      {onRetry ? (
        <Button variant="quiet" onPress={onRetry}>
          Try again
        </Button>
      ) : null}
    </div>
  );
}

export function Notice({ children, tone = 'info' }: { children: ReactNode; tone?: 'info' | 'success' | 'warning' }) {
  return <div className={`message message-${tone}`}>{children}</div>;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  /** Loads again; the current data stays shown meanwhile. */
  reload: () => Promise<void>;
}

/** Runs `load` when the deps change (aborting the previous run) and on reload(). */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, deps: DependencyList): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const controller = useRef<AbortController | null>(null);
  const loadRef = useRef(load);
  loadRef.current = load;

  const run = useCallback(async () => {
    controller.current?.abort();
    const mine = new AbortController();
    controller.current = mine;
    setLoading(true);
    try {
      const value = await loadRef.current(mine.signal);
      if (mine.signal.aborted) return;
      setData(value);
      setError(null);
    } catch (e) {
      if (mine.signal.aborted) return;
      setError(messageOf(e));
    } finally {
      if (!mine.signal.aborted) setLoading(false);
    }
  }, []);

  useEffect(() => {
    void run();
    return () => controller.current?.abort();
  }, deps);

  return { data, error, loading, reload: run };
}
