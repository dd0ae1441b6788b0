import { Type, type TObject, type TProperties, type Static } from '@sinclair/typebox';
import { IdString, Nullable, TYPE_DISCRIMINATOR } from '../../schemas/common.js';
import { CHANNEL_MODES, CHANNEL_TYPES, MODES_BY_TYPE, RBM_AGENT_STATES, type ChannelType } from '../../schemas/channel-types.js';

/**
 * Request and response schemas of the Channels API. Each type's own object is declared once
 * here; create, update and response shapes and the OpenAPI document are derived from it.
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

export const RBM_REGIONS = ['north_america', 'europe', 'asia_pacific'] as const;
const Region = Type.Union(RBM_REGIONS.map((r) => Type.Literal(r)));

/** How one channel type's own object looks in a create request, and which of its fields are credentials. */
interface TypeSpec {
  key?: string;
  input?: TObject;
  /** Fields of the type object that are credentials (encrypted at rest). */
  secretFields: readonly string[];
  /** Whether the type object is required on create. */
  required: boolean;
}

export const TYPE_SPECS: Record<ChannelType, TypeSpec> = {
  service_chat: { secretFields: [], required: false },
  socialnet_chat: {
    key: 'socialnet_page',
    input: Type.Object({ id: Str(100), access_token: Str(2000) }, strict),
    secretFields: ['access_token'],
    required: true,
  },
  mobile: {
    key: 'provider',
    input: Type.Object({ type: Type.Literal('smsprovider'), sender_id: Str(100), access_token: Str(2000), signing_key: Str(2000) }, strict),
    secretFields: ['access_token', 'signing_key'],
    required: true,
  },
  rbm: {
    key: 'rbm',
    input: Type.Object({ agent_name: Str(100), agent_state: Type.Optional(Type.Union(RBM_AGENT_STATES.map((s) => Type.Literal(s)))) }, strict),
    secretFields: [],
    required: true,
  },
  email: {
    key: 'provider',
    input: Type.Object(
      {
        type: Type.Literal('mailprovider'),
        access_token: Str(2000),
        sender: Type.Object({ email: Type.String({ minLength: 3, maxLength: 320, format: 'email' }), name: Str(200) }, strict),
      },
      strict,
    ),
    secretFields: ['access_token'],
    required: true,
  },
  botmsg: { key: 'botmsg', input: Type.Object({ access_token: Str(2000) }, strict), secretFields: ['access_token'], required: true },
  appmsg: { key: 'appmsg', input: Type.Object({ access_token: Str(2000) }, strict), secretFields: ['access_token'], required: true },
  appmsg_business_messages: {
    key: 'appmsg_business_messages',
    input: Type.Object(
      { sender_id: Str(100), default_message_ttl: Type.Optional(Type.Integer({ minimum: 30, maximum: 1209600, description: 'Seconds.' })) },
      strict,
    ),
    secretFields: [],
    required: true,
  },
};

/**
 * The modes a type takes, for the documentation: the service checks the value itself (with the
 * specification's wording), so TypeBox, which does not act on `enum` for strings, lets it through.
 */
function modeOf(type: ChannelType) {
  const modes = MODES_BY_TYPE[type];
  return Type.String({ enum: [...modes], description: modes.length > 1 ? `One of ${modes.join(', ')}; default production.` : 'production only.' });
}

function createSchemaFor(type: ChannelType): TObject {
  const spec = TYPE_SPECS[type];
  const props: TProperties = {
    type: Type.Literal(type),
    name: Str(200),
    mode: Type.Optional(modeOf(type)),
    webhook: Type.Optional(Nullable(WebhookInput)),
  };
  if (spec.key && spec.input) props[spec.key] = spec.required ? spec.input : Type.Optional(spec.input);
  if (type === 'rbm') props.region = Type.Optional(Region);
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
  const spec = TYPE_SPECS[type];
  const props: TProperties = {
    type: Type.Optional(Type.String()),
    name: Type.Optional(Str(200)),
    mode: Type.Optional(modeOf(type)),
    webhook: Type.Optional(Nullable(WebhookPatch)),
  };
  if (spec.key && spec.input) props[spec.key] = Type.Optional(partialDeep(spec.input));
  if (type === 'rbm') props.region = Type.Optional(Region);
  return Type.Object(props, { ...strict, title: `Update ${type} channel` });
}

export const CREATE_SCHEMAS = Object.fromEntries(CHANNEL_TYPES.map((t) => [t, createSchemaFor(t)])) as Record<ChannelType, TObject>;
export const UPDATE_SCHEMAS = Object.fromEntries(CHANNEL_TYPES.map((t) => [t, updateSchemaFor(t)])) as Record<ChannelType, TObject>;

/** The union documented in OpenAPI; the validator picks the member by `type`. */
export const CreateChannelBody = Type.Union(Object.values(CREATE_SCHEMAS), { discriminator: TYPE_DISCRIMINATOR, title: 'Create channel' });
export const UpdateChannelBody = Type.Union(Object.values(UPDATE_SCHEMAS), { title: 'Update channel' });

export const ChannelResponse = Type.Object(
  {
    id: IdString,
    type: Type.Union(CHANNEL_TYPES.map((t) => Type.Literal(t))),
    name: Type.String(),
    mode: Type.String({
      enum: [...CHANNEL_MODES],
      description: 'production everywhere; test on mobile, rbm and appmsg_business_messages; shared on appmsg_business_messages.',
    }),
    webhook: Nullable(Webhook),
    region: Type.Optional(Type.String()),
    socialnet_page: Type.Optional(
      Type.Object({ id: Type.String(), name: Nullable(Type.String()), category: Nullable(Type.String()), access_token: Type.String() }),
    ),
    provider: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    rbm: Type.Optional(Type.Object({ agent_name: Type.String(), agent_state: Type.String(), region: Type.Optional(Type.String()) })),
    botmsg: Type.Optional(Type.Object({ name: Nullable(Type.String()), username: Nullable(Type.String()), access_token: Type.String() })),
    appmsg: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    appmsg_business_messages: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { $id: 'Channel', additionalProperties: false },
);
export type ChannelView = Static<typeof ChannelResponse>;
