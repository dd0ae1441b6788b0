import { useCallback, useEffect, useRef, useState } from 'react';
import { messageOf } from '../../api';
import { formatTime } from '../../ui';
import { channelApi } from '../channel-api';
import { usePoll } from '../use-poll';
import type { Message } from '../types';
import { ContentView } from './content';
import { FailoverChain, failoverLinkOf } from './FailoverChain';

const WINDOW = 50;

/**
 * One contact's conversation, oldest at the top, read again every 2 s while the page is visible
 * so new messages and delivered/read marks appear without reloading.
 */
export function ConversationView(props: { channelId: string; contactId: string; refresh?: number; onLatest?: (m: Message | undefined) => void }) {
  const { channelId, contactId, onLatest } = props;
  const [messages, setMessages] = useState<Message[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const bottom = useRef<HTMLLIElement | null>(null);
  const lastId = useRef<string | undefined>(undefined);

  useEffect(() => {
    setMessages(null);
    lastId.current = undefined;
  }, [channelId, contactId]);

  const load = useCallback(
    async (signal: AbortSignal) => {
      try {
        const page = await channelApi.messages(channelId, contactId, { max: WINDOW }, signal);
        setMessages(page.items.slice().reverse());
        setTotal(page.total);
        setError(null);
        onLatest?.(page.items[0]);
      } catch (e) {
        if (!signal.aborted) setError(messageOf(e));
      }
    },
    [channelId, contactId, onLatest],
  );
  usePoll(load, 2000, { key: `${channelId}/${contactId}/${props.refresh ?? 0}` });

  // Follow the conversation when a new message arrives.
  const newest = messages?.[messages.length - 1]?.id;
  useEffect(() => {
    if (newest !== undefined && newest !== lastId.current) {
      lastId.current = newest;
      bottom.current?.scrollIntoView?.({ block: 'nearest' });
    }
  }, [newest]);

  return (
    <div className="ch-conversation">
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {messages === null ? (
        <p className="ch-muted">Loading…</p>
      ) : messages.length === 0 ? (
        <p className="ch-muted">No messages yet.</p>
      ) : (
        <>
          {total > messages.length && (
            <p className="ch-muted">
              Showing the latest {messages.length} of {total} messages.
            </p>
          )}
          <ol className="ch-messages" aria-label="Messages" aria-live="polite" aria-relevant="additions">
            {messages.map((m) => (
              <li key={m.id} className={`ch-msg ch-msg-${m.direction}`} data-testid="message" data-direction={m.direction} data-id={m.id}>
                <span className="ch-sr-only">{m.direction === 'received' ? 'Contact wrote:' : 'Sent:'}</span>
                <ContentView content={m.content} />
                <span className="ch-msg-meta">
                  <time dateTime={m.sent}>{formatTime(m.sent)}</time>
                  {m.direction === 'sent' && <Marks message={m} />}
                </span>
                {m.direction === 'sent' && <ChainOf message={m} />}
              </li>
            ))}
            <li ref={bottom} className="ch-sr-only" aria-hidden="true" />
          </ol>
        </>
      )}
    </div>
  );
}

function ChainOf({ message }: { message: Message }) {
  const link = failoverLinkOf(message);
  return link ? <FailoverChain link={link} /> : null;
}

function Marks({ message }: { message: Message }) {
  if (message.status === 'failed' || message.error) {
    return (
      <span className="ch-mark ch-mark-failed" data-mark="failed">
        Failed{message.error ? `: ${message.error.message}` : ''}
      </span>
    );
  }
  if (message.read) {
    return (
      <span className="ch-mark ch-mark-read" data-mark="read" title={`Read ${formatTime(message.read)}`}>
        <span aria-hidden="true">✓✓ </span>Read
      </span>
    );
  }
  if (message.delivered) {
    return (
      <span className="ch-mark" data-mark="delivered" title={`Delivered ${formatTime(message.delivered)}`}>
        <span aria-hidden="true">✓✓ </span>Delivered
      </span>
    );
  }
  const pending = message.status === 'pending';
  return (
    <span className="ch-mark" data-mark={pending ? 'queued' : 'sent'}>
      <span aria-hidden="true">✓ </span>
      {pending ? 'Queued' : 'Sent'}
    </span>
  );
}
