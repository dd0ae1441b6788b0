// Copies a value to the clipboard and says so; where the clipboard API is refused (plain HTTP
// on another host), the text is selected for the user to copy by hand.
import { useEffect, useState } from 'react';
import { Button, type Variant } from './button';

export interface CopyButtonProps {
  value: string;
  /** What is copied, for the button's accessible name ("Copy token"). */
  label?: string;
  variant?: Variant;
  /** An element whose text is selected when the clipboard cannot be written. */
  fallbackTargetId?: string;
}

export function CopyButton({ value, label = 'Copy', variant = 'secondary', fallbackTargetId }: CopyButtonProps) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (state === 'idle') return;
    const timer = window.setTimeout(() => setState('idle'), 2500);
    return () => window.clearTimeout(timer);
  }, [state]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      const target = fallbackTargetId ? document.getElementById(fallbackTargetId) : null;
      if (target) {
        const range = document.createRange();
        range.selectNodeContents(target);
        window.getSelection()?.removeAllRanges();
        window.getSelection()?.addRange(range);
      }
      setState('failed');
    }
  };

  return (
    <span className="copy">
      <Button variant={variant} onPress={() => void copy()}>
        {label}
      </Button>
      <span className="copy-status" role="status" aria-live="polite">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Could not copy: press Ctrl+C (⌘C) to copy the selected text' : ''}
      </span>
    </span>
  );
}
