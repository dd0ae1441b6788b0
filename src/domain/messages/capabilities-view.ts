import { Type, type Static } from '@sinclair/typebox';
import type { ConnectorRegistry } from '../../connectors/connector.js';
import { IdString } from '../../schemas/common.js';
import { ChannelTypeSchema } from '../../schemas/channel-types.js';
import { LIMITS } from '../../schemas/content.js';
import { definitionOf } from '../../channel-types/index.js';
import type { Channel } from '../channels/view.js';
import { sendingPath } from './sending.js';

const Names = Type.Array(Type.String());

/** GET /v1/channels/{id}/capabilities (beyond the specification): the declaration the API enforces. */
export const CapabilitiesResponse = Type.Object(
  {
    channel: Type.Object({ id: IdString, type: ChannelTypeSchema, mode: Type.String() }),
    sending: Type.Union(
      ['test', 'queued', 'direct', 'unavailable'].map((s) => Type.Literal(s)),
      {
        description:
          'What Send Message does now: test (stored and echoed, never sent), queued (stored, a job sends it), direct (sent inside the request), unavailable (502: no connector yet).',
      },
    ),
    delivery: Type.Union([Type.Literal('sync'), Type.Literal('async')]),
    content_types: Names,
    max_text_length: Type.Integer(),
    quick_replies: Type.Object({ max: Type.Integer(), rendering: Type.Union([Type.Literal('native'), Type.Literal('text')]), types: Names }),
    buttons: Type.Object({ types: Names, max_per_card: Type.Integer() }),
    max_cards: Type.Integer(),
    notifications: Names,
    contact_addressing: Names,
    reserved_metadata: Names,
  },
  { title: 'Capabilities' },
);
export type CapabilitiesView = Static<typeof CapabilitiesResponse>;

export function capabilitiesView(channel: Channel, connectors: ConnectorRegistry): CapabilitiesView {
  const { capabilities: caps, send } = definitionOf(channel.type);
  return {
    channel: { id: channel.id, type: channel.type, mode: channel.mode },
    sending: sendingPath(channel, connectors),
    delivery: caps.delivery,
    content_types: [...caps.contentTypes],
    max_text_length: caps.maxTextLength,
    quick_replies: { max: LIMITS.quickReplies, rendering: caps.quickReplies, types: [...caps.quickReplyKinds] },
    buttons: { types: [...caps.buttons], max_per_card: caps.maxButtonsPerCard },
    max_cards: caps.maxCards,
    notifications: [...caps.notifications],
    contact_addressing: [...caps.contactForms],
    reserved_metadata: [...send.reservedMetadata],
  };
}
