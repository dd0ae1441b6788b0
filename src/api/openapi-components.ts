import type { TSchema } from '@sinclair/typebox';
import { CHANNEL_TYPES, type ChannelType } from '../schemas/channel-types.js';
import { ErrorBody, discriminatorOf } from '../schemas/common.js';
import {
  BUTTON_SCHEMAS,
  Button,
  Card,
  CONTENT_DOC_SCHEMAS,
  ContactResponse,
  Content,
  MessageResponse,
  QUICK_REPLY_SCHEMAS,
  QuickReply,
  Receipt,
  SendContact,
  SendMessageDoc,
} from '../schemas/content.js';
import { ChannelResponse, CREATE_SCHEMAS, CreateChannelBody, UPDATE_SCHEMAS, UpdateChannelBody, Webhook } from '../domain/channels/schemas.js';
import { MessageError, MessageParts, MessageWithStatusResponse } from '../schemas/message-status.js';
import { SettingsResponse, TYPE_SETTINGS_COMPONENTS, TYPE_SETTINGS_SCHEMAS } from '../domain/settings/schemas.js';
import { NotificationResponse, SendNotificationBody } from '../domain/notifications/schemas.js';
import { DeliveryAttemptResponse, DeliveryResponse } from '../domain/webhooks/schemas.js';
import { CapabilitiesResponse } from '../domain/messages/capabilities-view.js';

type Json = Record<string, unknown>;

const pascal = (name: string) => name.replace(/(^|_)([a-z])/g, (_m, _s, c: string) => c.toUpperCase());

/**
 * The schemas the document names under `components/schemas`, so that clients generated from it
 * get named types (`Channel`, `Message`, `TextContent` ...) and the document states each shape once.
 */
const NAMED: Record<string, TSchema> = {
  Error: ErrorBody,
  Channel: ChannelResponse,
  Webhook,
  CreateChannel: CreateChannelBody,
  ...Object.fromEntries(CHANNEL_TYPES.map((t: ChannelType) => [`Create${pascal(t)}Channel`, CREATE_SCHEMAS[t]])),
  UpdateChannel: UpdateChannelBody,
  ...Object.fromEntries(CHANNEL_TYPES.map((t: ChannelType) => [`Update${pascal(t)}Channel`, UPDATE_SCHEMAS[t]])),
  SendMessage: SendMessageDoc,
  SendMessageContact: SendContact,
  Message: MessageResponse,
  MessageWithStatus: MessageWithStatusResponse,
  MessageError,
  MessageParts,
  Content,
  ...Object.fromEntries(Object.entries(CONTENT_DOC_SCHEMAS).map(([t, s]) => [`${pascal(t)}Content`, s])),
  QuickReply,
  ...Object.fromEntries(Object.entries(QUICK_REPLY_SCHEMAS).map(([t, s]) => [`${pascal(t)}QuickReply`, s])),
  Button,
  ...Object.fromEntries(Object.entries(BUTTON_SCHEMAS).map(([t, s]) => [`${pascal(t)}Button`, s])),
  Card,
  Receipt,
  Contact: ContactResponse,
  Settings: SettingsResponse,
  ...Object.fromEntries(TYPE_SETTINGS_SCHEMAS.map((s) => [s.name, s.schema])),
  ...TYPE_SETTINGS_COMPONENTS,
  SendNotification: SendNotificationBody,
  Notification: NotificationResponse,
  Delivery: DeliveryResponse,
  DeliveryAttempt: DeliveryAttemptResponse,
  Capabilities: CapabilitiesResponse,
};

// JSON Schema keywords whose value is a schema, a list of schemas, or a map of name to schema.
const ONE = new Set(['items', 'additionalProperties', 'not', 'if', 'then', 'else', 'contains', 'propertyNames', 'unevaluatedItems', 'unevaluatedProperties']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Turns TypeBox schemas into document schemas in which every named schema is a `$ref` to its
 * component. Named schemas are found by identity (TypeBox embeds the same object) or by `$id`;
 * the result is a plain copy (TypeBox's symbol keys dropped), the route schemas stay untouched.
 */
export class ComponentSchemas {
  private readonly byObject = new Map<object, string>();
  private readonly byId = new Map<string, string>();

  constructor(private readonly named: Record<string, TSchema> = NAMED) {
    for (const [name, schema] of Object.entries(named)) {
      this.byObject.set(schema, name);
      const id = (schema as { $id?: unknown }).$id;
      if (typeof id === 'string') this.byId.set(id, name);
    }
  }

  private nameOf(schema: Json): string | undefined {
    const id = schema.$id;
    return this.byObject.get(schema) ?? (typeof id === 'string' ? this.byId.get(id) : undefined);
  }

  /** The schema with named parts replaced by references (the schema itself too, if named). */
  ref(schema: unknown): unknown {
    if (!isObject(schema)) return schema;
    const name = this.nameOf(schema);
    return name ? { $ref: `#/components/schemas/${name}` } : this.inner(schema);
  }

  private inner(schema: Json): Json {
    const out: Json = {};
    for (const key of Object.keys(schema)) {
      const value = schema[key];
      if (key === '$id') continue;
      if (ONE.has(key)) out[key] = this.ref(value);
      else if (LIST.has(key) && Array.isArray(value)) out[key] = value.map((v) => this.ref(v));
      else if (MAP.has(key) && isObject(value)) out[key] = Object.fromEntries(Object.keys(value).map((k) => [k, this.ref(value[k])]));
      else out[key] = value;
    }
    const property = discriminatorOf(schema as TSchema);
    if (property) out.discriminator = { propertyName: property, ...this.mapping(schema, property) };
    return out;
  }

  /** A discriminator names the component of each value when every member is one. */
  private mapping(schema: Json, property: string): { mapping?: Record<string, string> } {
    const members = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
    if (!Array.isArray(members)) return {};
    const mapping: Record<string, string> = {};
    for (const member of members) {
      const name = this.nameOf(member);
      const value = (member.properties as Record<string, { const?: unknown }> | undefined)?.[property]?.const;
      if (!name || typeof value !== 'string') return {};
      mapping[value] = `#/components/schemas/${name}`;
    }
    return { mapping };
  }

  /** Every named schema, its own named parts as references. */
  all(): Record<string, Json> {
    return Object.fromEntries(Object.entries(this.named).map(([name, schema]) => [name, this.inner(schema as unknown as Json)]));
  }
}
