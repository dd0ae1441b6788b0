// Short notices after an action ("Token revoked"), announced to screen readers and closing by
// themselves. Call toast() from anywhere; <Toasts /> is rendered once by the app.
import {
  UNSTABLE_Toast as Toast,
  UNSTABLE_ToastContent as ToastContent,
  UNSTABLE_ToastQueue as ToastQueue,
  UNSTABLE_ToastRegion as ToastRegion,
  Text,
} from 'react-aria-components';
import { Button } from './button';

interface Notice {
  message: string;
  tone: 'success' | 'error' | 'info';
}

const queue = new ToastQueue<Notice>({ maxVisibleToasts: 3 });

export function toast(message: string, tone: Notice['tone'] = 'success'): void {
  queue.add({ message, tone }, { timeout: tone === 'error' ? 10000 : 5000 });
}

export function Toasts() {
  return (
    <ToastRegion queue={queue} className="toast-region">
      {({ toast: item }) => (
        <Toast toast={item} className={`toast toast-${item.content.tone}`}>
          <ToastContent className="toast-content">
            <Text slot="title">{item.content.message}</Text>
          </ToastContent>
          <Button slot="close" variant="quiet" aria-label="Dismiss">
            ×
          </Button>
        </Toast>
      )}
    </ToastRegion>
  );
}
