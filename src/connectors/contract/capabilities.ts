import type { ButtonType, ContactForm, ContentType, QuickReplyKind } from '../../schemas/content.js';
import type { NotificationType } from './outbound.js';

/**
 * What a channel type can send; the API refuses the rest. The values are each type's static
 * data (not the connector's): the type's declaration holds them, and the API, the domain and the
 * connectors read that one source.
 */
export interface Capabilities {
  contentTypes: readonly ContentType[];
  /** `native`: the platform shows quick replies; `text`: they are rendered as numbered choices in the text. */
  quickReplies: 'native' | 'text';
  quickReplyKinds: readonly QuickReplyKind[];
  /** Button types of structure cards; empty when the platform has no buttons. */
  buttons: readonly ButtonType[];
  maxButtonsPerCard: number;
  maxCards: number;
  /** Characters of a text payload. */
  maxTextLength: number;
  notifications: readonly NotificationType[];
  /** `sync`: the platform is called inside the Send Message request; `async`: a queued job sends it. */
  delivery: 'sync' | 'async';
  /** How a Send Message request may name the contact. */
  contactForms: readonly ContactForm[];
}
