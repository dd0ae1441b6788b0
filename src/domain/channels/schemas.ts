import { Type, type TObject, type TProperties, type Static } from '@sinclair/typebox';
import { IdString, Nullable, TYPE_DISCRIMINATOR } from '../../schemas/common.js';
import { CHANNEL_MODES, CHANNEL_TYPES, type ChannelMode, type ChannelType } from '../../schemas/channel-types.js';
import { CHANNEL_TYPE_DEFINITIONS, definitionOf } from '../../channel-types/index.js';

/**
 * Request and response schemas of the Channels API, assembled from the channel type
 * definitions: each type's own object is declared once there; create, update and response
 * shapes and the OpenAPI document are derived from it.
 */
const Str = (max = 1000) => Type.String({ minLength: 1, maxLength: max });
const strict = { additionalProperties: false } as const;

export const SslVerification = Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')]);

export const WebhookInput = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'URL that receives all events of the channel.' }),
    ssl_verification: Type.Optional(SslVerification),
  },
  strict,
);
export const WebhookPatch = Type.Object({ url: Type.Optional(WebhookInput.properties.url), ssl_verification: Type.Optional(SslVerification) }, strict);

export const Webhook = Type.Object({
  id: IdString,
  url: Type.String(),
  secret: Type.String({ description: 'Key of the X-Hub-Signature HMAC.' }),
  ssl_verification: Type.Boolean(),
});

/**
 * The modes a type takes, for the documentation: the service checks the value itself (with the
 * specification's wording), so TypeBox, which does not act on `enum` for strings, lets it through.
 */
function modeOf(type: ChannelType) {
  const modes = definitionOf(type).modes;
  return Type.String({ enum: [...modes], description: modes.length > 1 ? `One of ${modes.join(', ')}; default production.` : 'production only.' });
}

function createSchemaFor(type: ChannelType): TObject {
  const { input } = definitionOf(type);
  const props: TProperties = {
    type: Type.Literal(type),
    name: Str(200),
    mode: Type.Optional(modeOf(type)),
    webhook: Type.Optional(Nullable(WebhookInput)),
  };
  if (input.key && input.schema) props[input.key] = input.required ? input.schema : Type.Optional(input.schema);
  Object.assign(props, input.extraFields);
  return Type.Object(props, { ...strict, title: `Create ${type} channel` });
}

function partialDeep(schema: TObject): TObject {
  const props: TProperties = {};
  for (const [k, v] of Object.entries(schema.properties)) {
    props[k] = Type.Optional(v.type === 'object' && 'properties' in v ? partialDeep(v as TObject) : v);
  }
  return Type.Object(props, strict);
}

function updateSchemaFor(type: ChannelType): TObject {
  const { input } = definitionOf(type);
  const props: TProperties = {
    type: Type.Optional(Type.String()),
    name: Type.Optional(Str(200)),
    mode: Type.Optional(modeOf(type)),
    webhook: Type.Optional(Nullable(WebhookPatch)),
  };
  if (input.key && input.schema) props[input.key] = Type.Optional(partialDeep(input.schema));
  Object.assign(props, input.extraFields);
  return Type.Object(props, { ...strict, title: `Update ${type} channel` });
}

export const CREATE_SCHEMAS = Object.fromEntries(CHANNEL_TYPES.map((t) => [t, createSchemaFor(t)])) as Record<ChannelType, TObject>;
export const UPDATE_SCHEMAS = Object.fromEntries(CHANNEL_TYPES.map((t) => [t, updateSchemaFor(t)])) as Record<ChannelType, TObject>;

/** The union documented in OpenAPI; the validator picks the member by `type`. */
export const CreateChannelBody = Type.Union(Object.values(CREATE_SCHEMAS), { discriminator: TYPE_DISCRIMINATOR, title: 'Create channel' });
export const UpdateChannelBody = Type.Union(Object.values(UPDATE_SCHEMAS), { title: 'Update channel' });

/** "a", "a and b", "a, b and c". */
function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** "production everywhere; test on ...; shared on ...": which types take each mode. */
function modesDescription(): string {
  const on = (mode: ChannelMode) => CHANNEL_TYPE_DEFINITIONS.filter((d) => d.modes.includes(mode)).map((d) => d.type);
  const others = CHANNEL_MODES.filter((m) => m !== 'production').map((m) => `${m} on ${listed(on(m))}`);
  return ['production everywhere', ...others].join('; ') + '.';
}

/** Each type's own object, under its input key (types sharing a key share its schema). */
function ownObjects(): TProperties {
  const props: TProperties = {};
  for (const { input, view } of CHANNEL_TYPE_DEFINITIONS) {
    if (input.key && view.schema && !(input.key in props)) props[input.key] = Type.Optional(view.schema);
  }
  return props;
}

export const ChannelResponse = Type.Object(
  {
    id: IdString,
    type: Type.Union(CHANNEL_TYPES.map((t) => Type.Literal(t))),
    name: Type.String(),
    mode: Type.String({ enum: [...CHANNEL_MODES], description: modesDescription() }),
    webhook: Nullable(Webhook),
    region: Type.Optional(Type.String()),
    shared_mode: Type.Optional(
      Type.Object(
        {
          messages_sent: Type.Integer({ minimum: 0, description: 'Messages the channel has sent or queued (failed ones do not count).' }),
          message_limit: Type.Integer({ minimum: 0, description: 'Messages a channel in mode shared may send (SHARED_MODE_MESSAGE_LIMIT).' }),
        },
        { description: 'Beyond the specification, Get Channel of a channel in mode `shared`: how much of its allowance it used.' },
      ),
    ),
    ...ownObjects(),
  },
  { $id: 'Channel', additionalProperties: false },
);

/** The Channel object; each type adds its own object (see the definitions' view schemas). */
export type ChannelView = Static<typeof ChannelResponse> & Record<string, unknown>;
