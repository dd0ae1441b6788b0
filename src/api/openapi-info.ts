import { PRODUCT_NAME } from './docs-page.js';

/** The document's introduction, shown at the top of the reference page (CommonMark). */
export const INFO_DESCRIPTION = `One HTTP+JSON API to send and receive messages over many platforms: web chat (\`service_chat\`),
\`socialnet_chat\`, SMS (\`mobile\`), \`rbm\`, \`appmsg\`, \`appmsg_business_messages\`, \`botmsg\` and \`email\`.
The message body has the same structure for every channel type; what each type can send is
answered by Get Capabilities.

## Authentication
Send the access token as \`Authorization: Bearer <token>\` (or, where a header is not possible, as the
query parameter \`access_token\`). Tokens come from the administration or \`parley token create\`.

## Errors
Every error has the body \`{timestamp, status: {code, message}, errors: [{message, field?, rejected_value?}]}\`
(schema \`Error\`). Validation errors (422) name the field with a dotted path such as
\`content.quick_replies[3].payload\`. A method a path does not take answers 405 with an \`Allow\` header;
an unknown path answers 404.

## Rate limits
Every authenticated answer carries \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\`
(UTC epoch seconds). Over the hourly quota every request answers 429 until the reset.

## Lists
List operations take \`max\` (1 to 100, default 10) and \`offset\` (default 0) and answer the total in
\`x-total-count\`.

## Events
Each channel's events (\`message_echo\`, \`message_received\`, \`messages_delivered\`, \`messages_read\`,
\`message_failed\`, \`postback\`, \`opt_in\`, \`notification\`) are POSTed to its webhook URL, signed with
\`X-Hub-Signature\` (HMAC-SHA1 of the body under \`webhook.secret\`) and \`X-Hub-Signature-256\`, and retried
1, 5, 20, 60, 180 and 480 minutes later until a 2xx answers. Beyond the specification, a
\`webhook_test\` event (\`{"event":"webhook_test","timestamp":...,"data":{"channel":{"id","type","name"}}}\`) is sent
when the administration app's webhook tab asks for one: signed, retried and logged like any event. Also
beyond it, \`channel_state_changed\` tells an rbm channel's webhook each change of its agent's state
(\`{"event":"channel_state_changed","timestamp":...,"data":{"channel":{"id","type","name"},"agent_state":"created","previous_agent_state":"create_requested","reason":null}}\`;
\`reason\` is the platform's, e.g. a rejected launch's comment), and a socialnet_chat channel's webhook when the
platform stops taking its page token (\`"page_state":"disconnected"\`, shown in \`socialnet_page\` while it lasts).

## Beyond the messaging API specification
${PRODUCT_NAME} implements the messaging API specification and adds the parts marked
\`x-beyond-specification: true\` in this document (and "beyond the specification" on the page):
Get Message, the \`Idempotency-Key\` header of Send Message, Get Capabilities, the webhook deliveries
log and redelivery, the \`webhook_test\` and \`channel_state_changed\` events, the testers of an rbm channel, Get
Channel's \`refresh\`, the \`secrets=omit\` parameter of List, Get, Create and Update Channel (which leaves out
\`webhook.secret\` and the platform credentials), a channel's NLP integration, stored files, the health checks, and the administration app's own API.`;

/** Tags in the order the page shows them. */
export const TAGS = [
  { name: 'Messages', description: "Send messages and read a contact's conversation." },
  { name: 'Channels', description: 'Connections to the messaging platforms, one type each, with their webhook.' },
  { name: 'Contacts', description: 'End users on one channel.' },
  { name: 'Settings', description: 'Per channel settings (socialnet_chat and service_chat).' },
  { name: 'Notifications', description: 'Typing and read indicators, and custom notifications on service_chat.' },
  { name: 'NLP', description: "Beyond the specification: a channel's NLP integration, whose results received text messages carry in `nlp`." },
  { name: 'Webhooks', description: 'Beyond the specification: the log of every webhook delivery with its tries, and redelivery.' },
  { name: 'Files', description: 'Beyond the specification: files received from contacts, stored by the service.' },
  { name: 'Operations', description: 'Beyond the specification: liveness and readiness checks for load balancers and orchestrators.' },
  {
    name: 'Administration',
    description:
      "Beyond the specification: the administration app's own API under /admin/api, behind its session cookie (sign-in) and CSRF token; the app reaches the operations above under /admin/api/v1 with the same session.",
  },
];
