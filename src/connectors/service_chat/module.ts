import { defineTypeModule } from '../../channel-types/module.js';
import { serviceChat } from './definition.js';

/**
 * service_chat: the service's own web chat. No settings, stand-in or failure codes: the runtime
 * registers its connector itself (createServiceChatConnector) with the chat server's push port,
 * and the administration app tries it in the browser with the widget.
 */
export const serviceChatModule = defineTypeModule({ type: 'service_chat', definition: serviceChat });
