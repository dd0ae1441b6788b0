import { Type } from '@sinclair/typebox';
import type { SettingsService } from '../../domain/settings/service.js';
import { SettingsResponse, TYPE_SETTINGS_SCHEMAS } from '../../domain/settings/schemas.js';
import { ErrorBody } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { pathId } from '../list-params.js';
import { UPDATE_SETTINGS_EXAMPLES } from './examples.js';
import type { RoutePlugin } from '../route-group.js';

const ChannelParams = Type.Object({ channel_id: Type.String() });
/** The body's rules depend on the channel's type, so the domain checks it; this documents it. */
const PatchBody = Type.Union(
  TYPE_SETTINGS_SCHEMAS.map((s) => Type.Partial(s.schema)),
  {
    title: 'Update settings (a value sets, null deletes)',
  },
);

export const settingsRoutes: RoutePlugin<{ settings: SettingsService }> = async (app, deps) => {
  const { settings } = deps;

  app.get(
    '/v1/channels/:channel_id/settings',
    {
      schema: {
        tags: ['Settings'],
        operationId: 'getSettings',
        summary: 'Get Settings (every setting of the type, null when unset)',
        params: ChannelParams,
        'x-response': { 200: SettingsResponse },
      },
    },
    async (request) => {
      const { channel_id } = request.params;
      return settings.get(accountOf(request).id, pathId(channel_id, 'Channel'));
    },
  );

  app.patch(
    '/v1/channels/:channel_id/settings',
    {
      schema: {
        tags: ['Settings'],
        operationId: 'updateSettings',
        summary: 'Update Settings (a value sets, null deletes); answers the whole settings object',
        description:
          'socialnet_chat settings act on the platform, whose low rate limit answers 502 (recovery takes minutes). Types without settings refuse every key with 422.',
        params: ChannelParams,
        body: Type.Object({}, { additionalProperties: true }),
        'x-body': PatchBody,
        'x-examples': UPDATE_SETTINGS_EXAMPLES,
        'x-response': { 200: SettingsResponse, 502: ErrorBody },
      },
    },
    async (request) => {
      const { channel_id } = request.params;
      return settings.update(accountOf(request).id, pathId(channel_id, 'Channel'), request.body ?? {});
    },
  );
};
