import { attempt, TrialFailure, type TrialDriver } from '../../trial/driver.js';
import { checkDelivered, NO_PLATFORM_ID, type ControlApi, typeObject } from '../../trial/control-api.js';

const TRIAL_USER = { first_name: 'Trial', last_name: 'User', username: 'trial_user' };

/** A user of the channel's bot writes to it in a private chat (pressing Start first, as a new user does). */
export function botmsgTrial(api: ControlApi): TrialDriver {
  return {
    send: ({ channel, user, text }) =>
      attempt(async () => {
        const token = typeObject(channel, 'botmsg').access_token;
        const { bots } = await api.expect('GET', '/bots');
        const bot = (bots as Array<Record<string, unknown>>).find((b) => b.token === token);
        if (!bot) throw new TrialFailure('unsupported', "The channel's bot is not one of the stand-in's bots.");
        const base = `/bots/${String(bot.id)}/users`;
        if (user !== null && user.externalId === null) throw new TrialFailure('unsupported', NO_PLATFORM_ID);
        let userId = user?.externalId ?? null;
        if (userId === null) {
          const { users } = await api.expect('GET', base);
          const known = (users as Array<Record<string, unknown>>).find((u) => u.username === TRIAL_USER.username);
          const made = known ?? (await api.expect('POST', base, TRIAL_USER)).user;
          userId = String(made.id);
          if (made.started !== true) checkDelivered(await api.expect('POST', `${base}/${userId}/start`, {}));
        }
        checkDelivered(await api.expect('POST', `${base}/${encodeURIComponent(userId)}/messages`, { text }));
        return { externalId: userId, phoneNumber: null };
      }),
  };
}
