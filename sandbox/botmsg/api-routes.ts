import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CONTROL_PREFIX } from '../shared/control.js';
import { isParsedForm, mergedParams, type UploadedFile } from '../shared/form-body.js';
import { applyFault, Described, originOf, type BmContext, type MethodHandler } from './context.js';
import { BotError, notFound, renderBotError, unauthorized } from './errors.js';
import { BOT_METHODS } from './methods-bot.js';
import { SEND_METHODS } from './methods-send.js';
import type { BmBot } from './state.js';

// The Bot API: {base}/bot<token>/<method> (GET or POST, case-insensitive method names) and
// {base}/file/bot<token>/<file_path>.

const METHODS: Record<string, MethodHandler> = { ...BOT_METHODS, ...SEND_METHODS };

export function botByToken(ctx: BmContext, token: string): BmBot | undefined {
  for (const bot of ctx.state.bots.values()) if (bot.token === token) return bot;
  return undefined;
}

/** Runs a method for a bot (also used for method calls returned in webhook answers). */
export async function callMethod(
  ctx: BmContext,
  bot: BmBot,
  name: string,
  params: Record<string, unknown>,
  files: UploadedFile[],
  origin: string,
): Promise<unknown> {
  const method = METHODS[name.toLowerCase()];
  if (!method) throw notFound();
  await applyFault(ctx, name.toLowerCase());
  return method(ctx, { bot, params, files, origin });
}

type Params = { botPath: string; method: string };

export function registerApiRoutes(app: FastifyInstance, ctx: BmContext): void {
  const handler = async (req: FastifyRequest<{ Params: Params }>, reply: FastifyReply): Promise<FastifyReply> => {
    const { botPath, method } = req.params;
    if (botPath.startsWith('_')) throw Object.assign(new Error('no such control route'), { statusCode: 404 });
    if (!botPath.startsWith('bot')) throw notFound();
    const bot = botByToken(ctx, botPath.slice(3));
    if (!bot) throw unauthorized();
    const files = isParsedForm(req.body) ? req.body.files : [];
    const result = await callMethod(ctx, bot, method, mergedParams(req.query, req.body), files, originOf(ctx, req));
    if (result instanceof Described) return reply.send({ ok: true, result: result.result, description: result.description });
    return reply.send({ ok: true, result });
  };
  app.route<{ Params: Params }>({ method: ['GET', 'POST'], url: '/:botPath/:method', handler });

  app.get<{ Params: { botPath: string; '*': string } }>('/file/:botPath/*', async (req, reply) => {
    const bot = req.params.botPath.startsWith('bot') ? botByToken(ctx, req.params.botPath.slice(3)) : undefined;
    if (!bot) throw unauthorized();
    const path = req.params['*'];
    const file = [...ctx.state.files.values()].find((f) => f.botId === bot.id && f.filePath === path);
    const media = file ? ctx.state.media.get(file.mediaId) : undefined;
    if (!file || !media) throw notFound();
    return reply.header('content-type', media.contentType).send(media.data);
  });

  app.setErrorHandler((err: unknown, req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) {
      const e = err as { statusCode?: number; message?: string };
      return reply.code(e.statusCode ?? 500).send({ error: { message: e.message ?? 'error' } });
    }
    if (err instanceof BotError) {
      const { status, body } = renderBotError(err);
      return reply.code(status).send(body);
    }
    const e = err as { statusCode?: number; message?: string };
    const mapped =
      e.statusCode === 413
        ? new BotError(413, 'Request Entity Too Large')
        : e.statusCode !== undefined && e.statusCode < 500
          ? new BotError(400, `Bad Request: ${e.message ?? 'invalid request'}`)
          : new BotError(500, 'Internal Server Error');
    const { status, body } = renderBotError(mapped);
    return reply.code(status).send(body);
  });

  app.setNotFoundHandler((req, reply) => {
    if (req.url.startsWith(CONTROL_PREFIX)) return reply.code(404).send({ error: { message: 'no such control route' } });
    const { status, body } = renderBotError(notFound());
    return reply.code(status).send(body);
  });
}
