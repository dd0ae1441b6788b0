import { SearchField, Input, Label } from 'react-aria-components';
import { formatRelative, Link } from '../../ui';
import type { Contact } from '../types';

export interface ContactRow {
  contact: Contact;
  /** Time of the contact's newest message, when known. */
  lastAt: string | null;
  lastText: string;
}

/** The contacts of the channel as the server found and ordered them: a search box and a list of links to each conversation. */
export function ContactList(props: {
  rows: ContactRow[];
  query: string;
  onQuery: (q: string) => void;
  selected: string | null;
  hrefOf: (contactId: string) => string;
  total: number;
}) {
  const shown = props.rows;
  return (
    <nav className="ch-contacts" aria-label="Contacts">
      <SearchField className="field" value={props.query} onChange={props.onQuery}>
        <Label className="field-label">Search contacts</Label>
        <Input className="input" placeholder="Name, phone number, e-mail" />
      </SearchField>
      {props.total > props.rows.length && (
        <p className="ch-muted">
          The {props.rows.length} most recently active of {props.total} contacts{props.query.trim() === '' ? '' : ' found'}.
        </p>
      )}
      {shown.length === 0 ? (
        <p className="ch-muted">{props.query.trim() === '' ? 'No contacts yet: they appear with their first message.' : 'No contact matches.'}</p>
      ) : (
        <ul className="ch-contact-list">
          {shown.map((r) => (
            <li key={r.contact.id}>
              <Link
                className={`ch-contact ${props.selected === r.contact.id ? 'ch-contact-selected' : ''}`}
                href={props.hrefOf(r.contact.id)}
                aria-current={props.selected === r.contact.id ? 'page' : undefined}
                data-testid="contact"
              >
                <span className="ch-contact-name">{r.contact.name}</span>
                {r.contact.phone_number && r.contact.phone_number !== r.contact.name && <span className="ch-muted">{r.contact.phone_number}</span>}
                <span className="ch-muted ch-contact-last">
                  {r.lastText}
                  {r.lastAt ? ` · ${formatRelative(r.lastAt)}` : ''}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </nav>
  );
}
