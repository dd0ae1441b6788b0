import type { NotificationService } from '../../domain/notifications/service.js';
import { NotificationResponse, SendNotificationBody } from '../../domain/notifications/schemas.js';
import { ErrorBody } from '../../schemas/common.js';
import { accountOf } from '../context.js';
import { SEND_NOTIFICATION_EXAMPLES } from './examples.js';
import type { RoutePlugin } from '../route-group.js';

export const notificationRoutes: RoutePlugin<{ notifications: NotificationService }> = async (app, deps) => {
  app.post(
    '/v1/notifications',
    {
      schema: {
        tags: ['Notifications'],
        operationId: 'sendNotification',
        summary: 'Send Notification (typing_on, typing_off, messages_read; custom on service_chat)',
        body: SendNotificationBody,
        'x-examples': SEND_NOTIFICATION_EXAMPLES,
        'x-response': { 200: NotificationResponse, 404: ErrorBody, 502: ErrorBody },
      },
    },
    async (request) => deps.notifications.send(accountOf(request).id, request.body),
  );
};
