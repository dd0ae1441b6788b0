import { attempt, TrialFailure, type TrialDriver } from '../../trial/driver.js';
import { checkDelivered, type ControlApi, typeObject } from '../../trial/control-api.js';

/** The number the trial user texts from when no contact is named (a fictitious UK mobile number). */
export const TRIAL_PHONE = '+447700900123';

/**
 * A phone texts the channel's number: the SMS provider's stand-in posts it to the number's
 * receive URL, which is set to the channel's own (as its owner sets it with the provider).
 */
export function mobileTrial(api: ControlApi): TrialDriver {
  return {
    send: ({ channel, user, text }) =>
      attempt(async () => {
        const provider = typeObject(channel, 'provider');
        const sender = typeof provider.sender_id === 'string' ? provider.sender_id.trim() : '';
        if (!/^\+?\d+$/.test(sender)) {
          throw new TrialFailure('unsupported', 'The channel sends from a sender name, not a number: a user cannot write to it.');
        }
        const receiveUrl = provider.receive_webhook_url;
        const digits = sender.replace(/^\+/, '');
        const { numbers } = await api.expect('GET', '/account');
        const known = (numbers as Array<Record<string, unknown>>).find((n) => n.number === digits);
        if (known?.receive_url !== receiveUrl) await api.expect('PUT', `/numbers/${digits}`, { receive_url: receiveUrl });
        if (user !== null && user.phoneNumber === null) throw new TrialFailure('unsupported', 'The contact has no phone number to text from.');
        const phone = user?.phoneNumber ?? TRIAL_PHONE;
        checkDelivered(await api.expect('POST', '/inbound', { originator: phone.replace(/^\+/, ''), recipient: digits, body: text }));
        return { externalId: null, phoneNumber: phone };
      }),
  };
}
