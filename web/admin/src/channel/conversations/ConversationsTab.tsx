import { useCallback, useRef, useState, type ReactNode } from 'react';
import { messageOf } from '../../api';
import type { ChannelPageProps } from '../../channels/channel-route';
import { channelApi } from '../channel-api';
import { usePoll } from '../use-poll';
import type { Contact, Message } from '../types';
import { ContactList, type ContactRow } from './ContactList';
import { Composer } from './Composer';
import { ConversationView } from './ConversationView';
import { summary } from './summary';

const CONTACTS = 100;
/** Contacts whose newest message is read to show by each (the server orders the list by activity). */
const WITH_ACTIVITY = 30;

/**
 * The Conversations tab: the channel's contacts (newest activity first, searchable) and the
 * selected contact's conversation, which the operator can answer.
 */
export function ConversationsTab({ channel, query }: ChannelPageProps) {
  const selected = query.get('contact');
  const base = `/admin/channels/${encodeURIComponent(channel.id)}/conversations`;
  return (
    <Conversations
      channelId={channel.id}
      selected={selected}
      hrefOf={(id) => `${base}?contact=${encodeURIComponent(id)}`}
      renderReply={(contact, refresh) => <Composer channel={channel} contact={contact} onSent={refresh} />}
    />
  );
}

/** Contacts and conversation, shared by the Conversations and Local trial tabs. */
export function Conversations(props: {
  channelId: string;
  selected: string | null;
  hrefOf: (contactId: string) => string;
  renderReply?: (contact: Contact, refresh: () => void) => ReactNode;
  /** Contacts poll faster where the user expects a new contact at once (the local trial). */
  contactsEveryMs?: number;
}) {
  const { channelId } = props;
  const [rows, setRows] = useState<ContactRow[]>([]);
  const [total, setTotal] = useState(0);
  const [search, setSearch] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const known = useRef(new Map<string, ContactRow>());
  const selected = useRef(props.selected);
  selected.current = props.selected;

  const loadContacts = useCallback(
    async (signal: AbortSignal) => {
      try {
        // The server orders by last activity and searches every contact of the channel.
        const q = search.trim();
        const page = await channelApi.contacts(channelId, { max: CONTACTS, offset: 0, order: 'last_activity', q }, signal);
        setTotal(page.total);
        const list = page.items.slice();
        // A contact opened by its link that is older than the list still gets its conversation
        // (not while searching: the list then holds only what matches).
        const wanted = selected.current;
        if (wanted !== null && q === '' && !list.some((c) => c.id === wanted)) {
          try {
            list.push(await channelApi.contact(channelId, wanted));
          } catch {
            // Gone or never here: the conversation view says so.
          }
        }
        // Each contact's newest message once (the most recently active ones only); the open
        // conversation keeps its own up to date.
        for (const contact of list.slice(0, WITH_ACTIVITY).concat(list.filter((c) => c.id === wanted))) {
          if (signal.aborted) return;
          if (known.current.has(contact.id)) continue;
          let latest: Message | undefined;
          try {
            latest = (await channelApi.messages(channelId, contact.id, { max: 1 }, signal)).items[0];
          } catch {
            latest = undefined;
          }
          known.current.set(contact.id, { contact, lastAt: latest?.sent ?? null, lastText: latest ? summary(latest) : '' });
        }
        setRows(list.map((c) => ({ ...(known.current.get(c.id) ?? { lastAt: null, lastText: '' }), contact: c })));
        setError(null);
      } catch (e) {
        if (!signal.aborted) setError(messageOf(e));
      }
    },
    [channelId, search],
  );
  // A contact picked (or made by the local trial) that the list does not hold yet reloads it.
  const missing = props.selected !== null && !rows.some((r) => r.contact.id === props.selected) ? props.selected : '';
  usePoll(loadContacts, props.contactsEveryMs ?? 10_000, { key: `${channelId}/${version}/${missing}/${search.trim()}` });

  const onLatest = useCallback(
    (m: Message | undefined) => {
      const id = props.selected;
      if (!id || !m) return;
      const row = known.current.get(id);
      if (row && row.lastAt !== m.sent) {
        const next = { ...row, lastAt: m.sent, lastText: summary(m) };
        known.current.set(id, next);
        setRows((list) => list.map((r) => (r.contact.id === id ? next : r)));
      }
    },
    [props.selected],
  );

  const contact = rows.find((r) => r.contact.id === props.selected)?.contact;
  return (
    <div className="ch-split">
      <div className="ch-split-side">
        {error && (
          <p className="field-error" role="alert">
            {error}
          </p>
        )}
        <ContactList rows={rows} query={search} onQuery={setSearch} selected={props.selected} hrefOf={props.hrefOf} total={total} />
      </div>
      <section className="ch-split-main" aria-label={contact ? `Conversation with ${contact.name}` : 'Conversation'}>
        {props.selected === null ? (
          <p className="ch-muted">Pick a contact to read the conversation.</p>
        ) : (
          <>
            {contact && (
              <h3 className="ch-conversation-title">
                {contact.name}
                {contact.phone_number && contact.phone_number !== contact.name ? ` (${contact.phone_number})` : ''}
              </h3>
            )}
            <ConversationView key={props.selected} channelId={channelId} contactId={props.selected} refresh={version} onLatest={onLatest} />
            {contact && props.renderReply?.(contact, () => setVersion((v) => v + 1))}
          </>
        )}
      </section>
    </div>
  );
}
