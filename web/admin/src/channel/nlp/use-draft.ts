import { useEffect, useRef, useState } from 'react';

/**
 * A form's draft of saved data. When the saved data changes underneath (polling brings a newer
 * view), an untouched draft follows it and an edited one is kept. `reset` takes what a save
 * answered.
 */
export function useDraft<T>(make: () => T, savedKey: string, same: (a: T, b: T) => boolean) {
  const [draft, setDraft] = useState(make);
  const [baseline, setBaseline] = useState(draft);
  const seenKey = useRef(savedKey);

  useEffect(() => {
    if (seenKey.current === savedKey) return;
    seenKey.current = savedKey;
    const next = make();
    setDraft((current) => (same(current, baseline) ? next : current));
    setBaseline(next);
  }, [savedKey]);

  const reset = (value: T) => {
    setBaseline(value);
    setDraft(value);
  };
  return { draft, setDraft, dirty: !same(draft, baseline), reset };
}
