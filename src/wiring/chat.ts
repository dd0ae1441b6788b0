import type { FastifyInstance } from 'fastify';
import type { Base } from './base.js';
import type { StoredFiles } from '../files/stored-files.js';
import type { Metrics } from '../operations/metrics.js';
import { ChatService } from '../domain/webchat/service.js';
import { ChatLimits } from '../domain/webchat/limits.js';
import type { ChatPushRelay } from '../domain/webchat/push.js';
import { ChatServer } from '../chat/server.js';
import { clientAddressOf } from '../lib/client-address.js';
import type { ClassifierWiring } from './nlp.js';

export interface ChatWiring {
  chat: ChatService;
  limits: ChatLimits;
}

/** Web chat (service_chat): the chat rules, stored files, received text classified. */
export function wireChat({ config, store, ids, clock, box, outbox }: Base, storedFiles: StoredFiles, classify: ClassifierWiring['classify']): ChatWiring {
  const limits = new ChatLimits(config.chatLimits, clock);
  const chat = new ChatService({ store, ids, clock, box, outbox, files: storedFiles, maxUploadBytes: config.chatMaxUploadBytes, limits, classify });
  return { chat, limits };
}

/**
 * The socket.io chat server on the API's HTTP server (a worker-only process serves no browsers:
 * null), attached to the push relay service_chat's connector delivers through.
 */
export function startChatServer(base: Base, deps: { app: FastifyInstance; chat: ChatWiring; chatPush: ChatPushRelay; metrics: Metrics }): ChatServer | null {
  const { config, store, logger } = base;
  const { app, chat, chatPush, metrics } = deps;
  const server =
    config.role === 'worker'
      ? null
      : new ChatServer(app.server, {
          chat: chat.chat,
          logger: logger.child({ component: 'chat' }),
          openClusterBus: (onError) => store.openClusterBus(onError),
          maxUploadBytes: config.chatMaxUploadBytes,
          limits: chat.limits,
          clientAddress: clientAddressOf(config.chatTrustedProxies),
          onSessionCount: (change) => (change > 0 ? metrics.chatConnected() : metrics.chatDisconnected()),
        });
  chatPush.attach(server);
  return server;
}
