/**
 * Request examples of the API reference, one per common case rather than one body that fills
 * every field at once. Ids look like the service's own (decimal, below 2^53).
 */
const CHANNEL_ID = '1102476290809856';
const SMS_CHANNEL_ID = '1102476408250368';
const CONTACT_ID = '1102477045784576';
const RBM_CHANNEL_ID = '1102476512067584';
const EMAIL_CHANNEL_ID = '1102476615876608';

interface Example {
  summary: string;
  description?: string;
  value: unknown;
}

export const SEND_MESSAGE_EXAMPLES: Record<string, Example> = {
  text: {
    summary: 'Text to a contact, by its id',
    description: "Works on every channel type; the id comes with the contact's first `message_received`.",
    value: { channel: { id: CHANNEL_ID }, contact: { id: CONTACT_ID }, content: { type: 'text', payload: 'Hello! How can we help you today?' } },
  },
  sms_test_mode: {
    summary: 'SMS by phone number (a mobile channel in test mode)',
    description: 'A new number creates the contact. In test mode the message is stored and echoed, never sent, at no cost.',
    value: {
      channel: { id: SMS_CHANNEL_ID },
      contact: { phone_number: '+1 202 555 0143' },
      content: { type: 'text', payload: 'Your order #1042 has shipped.' },
    },
  },
  quick_replies: {
    summary: 'Text with quick replies',
    description: 'At most 11; a tapped text quick reply comes back as a `message_received` with its payload.',
    value: {
      channel: { id: CHANNEL_ID },
      contact: { id: CONTACT_ID },
      content: {
        type: 'text',
        payload: 'Where should we deliver?',
        quick_replies: [
          { type: 'text', title: 'Home', payload: 'DELIVER_HOME' },
          { type: 'text', title: 'Pick-up point', payload: 'DELIVER_PICKUP' },
          { type: 'location' },
        ],
      },
    },
  },
  image: {
    summary: 'An image, with metadata',
    description: 'Metadata is free JSON, returned in `message_echo` and List Messages.',
    value: {
      channel: { id: CHANNEL_ID },
      contact: { id: CONTACT_ID },
      content: { type: 'image', payload: { url: 'https://example.com/catalog/red-shoes.jpg' } },
      metadata: { order_id: '1042' },
    },
  },
  card: {
    summary: 'A card with buttons (structure)',
    value: {
      channel: { id: CHANNEL_ID },
      contact: { id: CONTACT_ID },
      content: {
        type: 'structure',
        payload: {
          title: 'Red shoes',
          text: 'Size 42, in stock',
          image_url: 'https://example.com/catalog/red-shoes.jpg',
          buttons: [
            { type: 'url', title: 'View', payload: 'https://example.com/catalog/red-shoes' },
            { type: 'postback', title: 'Buy', payload: 'BUY_RED_SHOES_42' },
          ],
        },
      },
    },
  },
  socialnet_by_phone: {
    summary: 'socialnet_chat by phone number, with a message tag',
    description: 'Before the user opts in, the service sets the tag `non_promotional_subscription` itself; `tag` here is used after the opt-in.',
    value: {
      channel: { id: CHANNEL_ID },
      contact: { phone_number: '+44 20 7946 0958', first_name: 'Ada', last_name: 'Lovelace' },
      content: { type: 'text', payload: 'Your parcel is on its way.' },
      metadata: { tag: 'shipping_update' },
    },
  },
  failover: {
    summary: 'rbm, then SMS if not delivered within 5 minutes, then e-mail if that fails (beyond the specification)',
    description:
      'Each fallback names a channel of the account and what of the step before moves on to it (`failed`, `not_delivered` or `not_read` within `within` seconds). The SMS finds the contact by the same phone number; the e-mail step names its address and gives its own content. Every step is checked now: content a later channel cannot carry is a 422 naming `fallbacks[i]`. See docs/failover.md.',
    value: {
      channel: { id: RBM_CHANNEL_ID },
      contact: { phone_number: '+420601123456' },
      content: { type: 'text', payload: 'Your parcel arrives today between 2 and 4 pm.' },
      fallbacks: [
        { channel: { id: SMS_CHANNEL_ID }, when: 'not_delivered', within: 300 },
        {
          channel: { id: EMAIL_CHANNEL_ID },
          when: 'failed',
          contact: { email: 'ada@example.com', name: 'Ada Lovelace' },
          content: { type: 'text', payload: 'Your parcel arrives today between 2 and 4 pm. Reply to this mail to change the time.' },
        },
      ],
    },
  },
};

export const CREATE_CHANNEL_EXAMPLES: Record<string, Example> = {
  mobile_test: {
    summary: 'SMS channel in test mode',
    value: {
      type: 'mobile',
      name: 'Order updates (test)',
      mode: 'test',
      provider: { type: 'smsprovider', sender_id: '+12025550100', access_token: 'provider-api-key', signing_key: 'provider-signing-key' },
    },
  },
  service_chat: {
    summary: 'Web chat with a webhook',
    value: { type: 'service_chat', name: 'Shop chat', webhook: { url: 'https://shop.example.com/parley/events' } },
  },
  socialnet_chat: {
    summary: 'socialnet_chat page',
    value: { type: 'socialnet_chat', name: 'Shop page', socialnet_page: { id: '104857600123456', access_token: 'page-access-token' } },
  },
  email: {
    summary: 'E-mail (alpha)',
    value: {
      type: 'email',
      name: 'Support mail',
      provider: { type: 'mailprovider', access_token: 'provider-private-key', sender: { email: 'support@shop.example.com', name: 'Shop support' } },
    },
  },
};

export const UPDATE_CHANNEL_EXAMPLES: Record<string, Example> = {
  rename: { summary: 'Rename', value: { name: 'Order updates' } },
  webhook: {
    summary: 'Set the webhook (a new URL keeps the secret)',
    value: { webhook: { url: 'https://shop.example.com/parley/events', ssl_verification: true } },
  },
  remove_webhook: { summary: 'Remove the webhook', value: { webhook: null } },
};

export const UPDATE_SETTINGS_EXAMPLES: Record<string, Example> = {
  whitelist: { summary: 'Allow web chat on a site (service_chat)', value: { domains_whitelist: ['https://shop.example.com', 'http://localhost:3000'] } },
  get_started: { summary: 'Get started button (socialnet_chat)', value: { get_started_button: { payload: 'GET_STARTED' } } },
  delete: { summary: 'Delete a setting', value: { domains_whitelist: null } },
};

export const SEND_NOTIFICATION_EXAMPLES: Record<string, Example> = {
  typing: { summary: 'Typing indicator', value: { channel: { id: CHANNEL_ID }, contact: { id: CONTACT_ID }, type: 'typing_on' } },
  custom: {
    summary: 'Custom notification (service_chat)',
    value: { channel: { id: CHANNEL_ID }, contact: { id: CONTACT_ID }, type: 'custom', payload: { cart_items: 2 } },
  },
};
