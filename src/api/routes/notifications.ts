import type { FastifyInstance } from 'fastify';
import type { NotificationService } from '../../domain/notifications/service.js';
import { NotificationResponse, SendNotificationBody } from '../../domain/notifications/schemas.js';
import { ErrorBody } from '../../schemas/common.js';
import { accountOf } from '../context.js';

const errors = { 400: ErrorBody, 401: ErrorBody, 422: ErrorBody, 429: ErrorBody, 502: ErrorBody };

export function notificationRoutes(app: FastifyInstance, deps: { notifications: NotificationService }): void {
  app.post('/v1/notifications', {
    schema: {
      tags: ['Notifications'],
      summary: 'Send Notification (typing_on, typing_off, messages_read; custom on service_chat)',
      body: SendNotificationBody,
      'x-response': { 200: NotificationResponse, ...errors },
    },
  }, async (request) => deps.notifications.send(accountOf(request).id, request.body as SendNotificationBody));
}
