import type { Card, Content, QuickReply } from '../types';

/**
 * A message's content as the operator reads it. Media from this server (stored attachments) is
 * shown inline; media elsewhere is a link, since the app loads nothing from other origins.
 */
function sameOrigin(url: string): boolean {
  try {
    return new URL(url, window.location.href).origin === window.location.origin;
  } catch {
    return false;
  }
}

function Media({ kind, url }: { kind: 'image' | 'video' | 'audio' | 'file'; url: string }) {
  const local = sameOrigin(url);
  if (local && kind === 'image') return <img className="ch-media" src={url} alt="Image attachment" />;
  if (local && kind === 'video') return <video className="ch-media" src={url} controls aria-label="Video attachment" />;
  if (local && kind === 'audio') return <audio src={url} controls aria-label="Audio attachment" />;
  return (
    <a className="link" href={url} target="_blank" rel="noopener noreferrer">
      {kind === 'file' ? 'File' : kind.charAt(0).toUpperCase() + kind.slice(1)}: {url}
    </a>
  );
}

function CardView({ card }: { card: Card }) {
  return (
    <div className="ch-msg-card">
      {card.image_url &&
        (sameOrigin(card.image_url) ? <img className="ch-media" src={card.image_url} alt="" /> : <span className="ch-muted">Image: {card.image_url}</span>)}
      {card.title && <strong>{card.title}</strong>}
      {card.text && <p>{card.text}</p>}
      {card.buttons && card.buttons.length > 0 && (
        <ul className="ch-chips" aria-label="Buttons">
          {card.buttons.map((b, i) => (
            <li key={i} className="ch-chip">
              {b.title}
              <span className="ch-sr-only">
                {' '}
                ({b.type}: {b.payload})
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function quickReplyLabel(q: QuickReply): string {
  if (q.type === 'text') return q.title ?? q.payload ?? '';
  if (q.type === 'location') return 'Send location';
  if (q.type === 'email') return 'Send e-mail address';
  return 'Send phone number';
}

export function ContentView({ content }: { content: Content }) {
  let body;
  switch (content.type) {
    case 'text':
      body = <p className="ch-msg-text">{content.payload}</p>;
      break;
    case 'image':
    case 'video':
    case 'audio':
    case 'file':
      body = <Media kind={content.type} url={content.payload.url} />;
      break;
    case 'location':
      body = (
        <p className="ch-msg-text">
          Location: {content.payload.latitude}, {content.payload.longitude}
        </p>
      );
      break;
    case 'structure': {
      const cards = Array.isArray(content.payload) ? content.payload : [content.payload];
      body = (
        <div className={cards.length > 1 ? 'ch-carousel' : undefined}>
          {cards.map((c, i) => (
            <CardView key={i} card={c} />
          ))}
        </div>
      );
      break;
    }
    case 'receipt':
      body = (
        <p className="ch-msg-text">
          Receipt {content.payload.order_number}: {content.payload.summary.total_cost} {content.payload.currency}
        </p>
      );
      break;
    default:
      body = <p className="ch-muted">({(content as { type: string }).type} message)</p>;
  }
  return (
    <>
      {body}
      {content.quick_replies && content.quick_replies.length > 0 && (
        <ul className="ch-chips" aria-label="Quick replies">
          {content.quick_replies.map((q, i) => (
            <li key={i} className="ch-chip ch-chip-reply">
              {quickReplyLabel(q)}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
