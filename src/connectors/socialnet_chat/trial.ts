import { attempt, TrialFailure, type TrialDriver } from '../../trial/driver.js';
import { checkDelivered, NO_PLATFORM_ID, type ControlApi, typeObject } from '../../trial/control-api.js';

const TRIAL_USER = { first_name: 'Trial', last_name: 'User' };

/** A user of the channel's page writes to it (the page's stand-in calls the service's webhook). */
export function socialnetChatTrial(api: ControlApi): TrialDriver {
  return {
    send: ({ channel, user, text }) =>
      attempt(async () => {
        const pageId = typeObject(channel, 'socialnet_page').id;
        if (typeof pageId !== 'string' || pageId === '') throw new TrialFailure('unsupported', 'The channel names no page.');
        const page = `/pages/${encodeURIComponent(pageId)}`;
        if (user !== null && user.externalId === null) throw new TrialFailure('unsupported', NO_PLATFORM_ID);
        let psid = user?.externalId ?? null;
        if (psid === null) {
          const { users } = await api.expect('GET', `${page}/users`);
          const known = (users as Array<Record<string, unknown>>).find((u) => u.first_name === TRIAL_USER.first_name && u.last_name === TRIAL_USER.last_name);
          psid = known ? String(known.psid) : String((await api.expect('POST', `${page}/users`, TRIAL_USER)).user.psid);
        }
        checkDelivered(await api.expect('POST', `${page}/users/${encodeURIComponent(psid)}/messages`, { text }));
        return { externalId: psid, phoneNumber: null };
      }),
  };
}
