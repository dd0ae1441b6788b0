/**
 * The shapes the channel tabs read from the API, taken from the generated API types
 * (api-schema.d.ts). Ids are decimal strings, times ISO 8601 strings.
 */
import type { AnswerOf } from '../api';
import type { components } from '../api-schema';

export type { Channel } from '../types';

type Schemas = components['schemas'];

export type Delivery = Schemas['Delivery'];
export type DeliveryStatus = Delivery['status'];
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed', 'dropped'];

export type Contact = Schemas['Contact'];
export type Message = AnswerOf<'/v1/messages/{message_id}', 'get'>;
export type Content = Schemas['Content'];
export type QuickReply = Schemas['QuickReply'];
export type Card = Schemas['Card'];

export type ServiceChatSettings = Schemas['ServiceChatSettings'];
export type SocialnetChatSettings = Schemas['SocialnetChatSettings'];
/** A menu's top-level item as the API takes and answers it; a `menu` item holds the next level's. */
export type MenuItem = Schemas['SocialnetChatMenuItemLevel1'];
