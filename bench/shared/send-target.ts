import type { Runtime } from '../../src/runtime.js';

/**
 * What the Send Message load sends to: an enterprise account whose quota and concurrency never
 * limit the run, its token, and a mobile channel in test mode (stored and reported, never handed
 * to a provider). Shared by the benchmarks that load Send Message.
 */
export async function sendTarget(runtime: Runtime) {
  const { accounts, channels } = runtime.services;
  const account = await accounts.createAccount({ name: 'bench', plan: 'enterprise', hourlyLimit: 1_000_000_000, concurrency: 10_000 });
  const { accessToken } = await accounts.createToken(account.id);
  const channel = await channels.create(account.id, {
    type: 'mobile',
    name: 'bench',
    mode: 'test',
    provider: { type: 'smsprovider', sender_id: 'Parley', access_token: 'bench', signing_key: 'bench' },
  });
  return { account, accessToken, channel };
}
