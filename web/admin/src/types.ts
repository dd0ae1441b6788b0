// Shapes the app reads from the server, every one taken from the generated API types
// (api-schema.d.ts): the app's own routes and the parts of the /v1 resources the pages use.
import type { AnswerOf, BodyOf } from './api';
import type { components } from './api-schema';

type Schemas = components['schemas'];

export type SessionInfo = AnswerOf<'/session/state', 'get'>;
export type User = SessionInfo['user'];
export type Role = User['role'];
export type Account = SessionInfo['account'];

export type ApiToken = AnswerOf<'/tokens', 'get'>['data'][number];
export type NewApiToken = AnswerOf<'/tokens', 'post'>;
export type Overview = AnswerOf<'/overview', 'get'>;
export type OverviewChannel = Overview['channels'][number];
export type HourCounts = OverviewChannel['hourly'][number];

/** A channel type as the app shows it (GET /admin/api/channel-types). */
export type ChannelTypeInfo = AnswerOf<'/channel-types', 'get'>['data'][number];
export type FieldInfo = ChannelTypeInfo['fields'][number];
export type PlatformStateInfo = NonNullable<ChannelTypeInfo['platform_state']>;

export type Channel = Schemas['Channel'];
export type CreateChannelBody = BodyOf<'/v1/channels', 'post'>;
export type UpdateChannelBody = BodyOf<'/v1/channels/{channel_id}', 'patch'>;
