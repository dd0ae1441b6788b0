import type { ChannelContext, PlatformChannelState, PlatformResult, Tester, TesterState } from '../connector.js';
import { statusOf, type RbmApi } from './api.js';
import { agentBody, launchBody, verificationBody } from './agent-bodies.js';
import type { RbmOptions } from './options.js';

/**
 * The agent's life cycle on the management API, and its testers:
 * - register (`create_requested`): a brand (once per channel), the agent with the channel's
 *   profile in its hosting region, and the brand verification request with the channel's
 *   verification contact; the agent is `created` once verified;
 * - launch (`launch_requested`): the first launch with `:requestLaunch` and the channel's
 *   questionnaire in every region the platform lists (a later request adds regions with PATCH); `launched` once a region launched,
 *   back to `created` when every region was rejected, with the reviewers' comment as the reason;
 * - testers: the management API's testers resource (invite, read, list, remove).
 */
type Json = Record<string, unknown>;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

function agentPath(config: Record<string, unknown>): string | null {
  const brand = str(config.brand_id);
  const agent = str(config.agent_id);
  return brand && agent ? `/v1/brands/${brand}/agents/${agent}` : null;
}

/** The neutral state from the verification and launch the platform reports. */
export function stateOf(verification: string, launchDetails: Json): PlatformChannelState {
  const regions = Object.values(launchDetails).map((d) => (d ?? {}) as Json);
  const states = regions.map((d) => String(d.launchState ?? ''));
  const platformState = [verification, ...Object.entries(launchDetails).map(([k, d]) => `${k}=${String((d as Json)?.launchState ?? '')}`)].join(' ');
  if (states.includes('LAUNCH_STATE_LAUNCHED')) return { state: 'launched', platformState, reach: 'anyone' };
  if (states.some((s) => s === 'LAUNCH_STATE_PENDING' || s === 'LAUNCH_STATE_PENDING_UNLAUNCH'))
    return { state: 'launch_requested', platformState, reach: 'testers' };
  if (verification === 'VERIFICATION_STATE_VERIFIED') {
    const comments = regions.filter((d) => d.launchState === 'LAUNCH_STATE_REJECTED').map((d) => str(d.comment) ?? 'The launch was rejected.');
    return { state: 'created', platformState, reach: 'testers', ...(comments.length > 0 ? { reason: [...new Set(comments)].join(' ') } : {}) };
  }
  return {
    state: 'create_requested',
    platformState,
    reach: 'nobody',
    ...(verification === 'VERIFICATION_STATE_UNVERIFIED' ? { reason: 'The platform has not verified the agent’s brand.' } : {}),
  };
}

const TESTER_STATES: Record<string, TesterState> = { PENDING: 'pending', ACCEPTED: 'accepted', DECLINED: 'declined' };

function testerOf(json: Json): Tester | null {
  const phoneNumber = str(json.phoneNumber);
  const state = TESTER_STATES[String(json.inviteStatus ?? '')];
  return phoneNumber && state ? { phoneNumber, state } : null;
}

const noAgent = (): PlatformResult<never> => ({
  ok: false,
  retryable: false,
  code: 'no_agent',
  message: 'The channel has no agent on the platform yet: write rbm.agent_state create_requested first.',
});

export class AgentLifecycle {
  constructor(
    private readonly api: RbmApi,
    private readonly options: RbmOptions,
  ) {}

  async readState(channel: ChannelContext): Promise<PlatformResult<PlatformChannelState>> {
    const path = agentPath(channel.config);
    if (path === null) {
      const state = str(channel.config.agent_state) ?? 'new';
      return { ok: true, value: { state, platformState: 'UNREGISTERED', reach: 'nobody' } };
    }
    const verification = await this.api.call(channel, 'management', 'GET', `${path}/verification`);
    if (!verification.ok) return verification;
    const launch = await this.api.call(channel, 'management', 'GET', `${path}/launch`);
    if (!launch.ok) return launch;
    const details = ((launch.value[this.options.productKey] as Json | undefined)?.launchDetails ?? {}) as Json;
    const state = stateOf(String(verification.value.verificationState ?? ''), details);
    // An agent registered while its verification request failed is asked for it again.
    if (state.platformState.startsWith('VERIFICATION_STATE_UNVERIFIED') && channel.config.verification_requested !== true) {
      const asked = await this.requestVerification(channel, path);
      if (asked.ok)
        return this.readState({ ...channel, config: { ...channel.config, verification_requested: true } }).then(withConfig({ verification_requested: true }));
    }
    return { ok: true, value: state };
  }

  async requestState(channel: ChannelContext, wanted: string): Promise<PlatformResult<PlatformChannelState>> {
    if (wanted === 'create_requested') return this.register(channel);
    if (wanted === 'launch_requested') return this.launch(channel);
    return this.readState(channel);
  }

  private requestVerification(channel: ChannelContext, path: string): Promise<PlatformResult<Json>> {
    return this.api.call(channel, 'management', 'POST', `${path}:requestVerification`, verificationBody(channel.config));
  }

  /** Registers the agent (and its brand) unless the channel has one, then asks for its verification. */
  private async register(channel: ChannelContext): Promise<PlatformResult<PlatformChannelState>> {
    const config: Record<string, unknown> = {};
    let brand = str(channel.config.brand_id);
    if (brand === undefined) {
      const made = await this.api.call(channel, 'management', 'POST', '/v1/brands', { displayName: str(channel.config.agent_name) ?? 'Brand' });
      if (!made.ok) return made;
      brand = String(made.value.name ?? '').split('/')[1];
      if (!brand) return { ok: false, retryable: true, code: 'bad_answer', message: 'The platform made a brand without a name.' };
      config.brand_id = brand;
    }
    if (str(channel.config.agent_id) === undefined) {
      const made = await this.api.call(channel, 'management', 'POST', `/v1/brands/${brand}/agents`, agentBody(channel.config, this.options.productKey));
      if (!made.ok) return made;
      const agent = String(made.value.name ?? '').split('/')[3];
      if (!agent) return { ok: false, retryable: true, code: 'bad_answer', message: 'The platform made an agent without a name.' };
      config.agent_id = agent;
    }
    const registered = { ...channel, config: { ...channel.config, ...config } };
    const asked = await this.requestVerification(registered, agentPath(registered.config)!);
    // The agent exists either way: its ids are kept, and a failed verification request is made again later.
    config.verification_requested = asked.ok;
    const read = await this.readState({ ...registered, config: { ...registered.config, verification_requested: asked.ok } });
    if (!read.ok) return { ok: true, value: { state: 'create_requested', platformState: 'REGISTERED', reach: 'nobody', config } };
    return { ok: true, value: { ...read.value, config: { ...config, ...read.value.config } } };
  }

  /** The first launch in every region the platform lists; later requests add the regions with PATCH. */
  private async launch(channel: ChannelContext): Promise<PlatformResult<PlatformChannelState>> {
    const path = agentPath(channel.config);
    if (path === null) return noAgent();
    const regions = await this.api.call(channel, 'management', 'GET', '/v1/regions');
    if (!regions.ok) return regions;
    const names = ((regions.value.regions as Json[] | undefined) ?? []).map((r) => str(r?.name)).filter((n): n is string => n !== undefined);
    if (names.length === 0) return { ok: false, retryable: true, code: 'no_regions', message: 'The platform lists no region to launch in.' };
    // The first launch goes with the questionnaire; an agent with a launch already (a region
    // rejected, or launched elsewhere) has the regions added or asked again with PATCH.
    const current = await this.api.call(channel, 'management', 'GET', `${path}/launch`);
    if (!current.ok) return current;
    const known = Object.keys(((current.value[this.options.productKey] as Json | undefined)?.launchDetails ?? {}) as Json);
    const asked =
      known.length === 0
        ? await this.api.call(channel, 'management', 'POST', `${path}:requestLaunch`, launchBody(channel.config, this.options.productKey, names))
        : await this.api.call(channel, 'management', 'PATCH', `${path}/launch`, {
            [this.options.productKey]: { launchDetails: Object.fromEntries(names.map((n) => [n, {}])) },
          });
    if (!asked.ok) return asked;
    return this.readState(channel);
  }

  async invite(channel: ChannelContext, phoneNumber: string): Promise<PlatformResult<Tester>> {
    const agentId = str(channel.config.agent_id);
    if (agentId === undefined) return noAgent();
    const made = await this.api.call(channel, 'management', 'POST', '/v1/testers', { agentId, phoneNumber });
    if (!made.ok) {
      // Invited before: its answer is read.
      if (statusOf(made) === 'ALREADY_EXISTS') return this.readTester(channel, agentId, phoneNumber);
      return made;
    }
    return { ok: true, value: testerOf(made.value) ?? { phoneNumber, state: 'pending' } };
  }

  private async readTester(channel: ChannelContext, agentId: string, phoneNumber: string): Promise<PlatformResult<Tester>> {
    const read = await this.api.call(channel, 'management', 'GET', `/v1/testers/${encodeURIComponent(phoneNumber)}?agentId=${encodeURIComponent(agentId)}`);
    if (!read.ok) return read;
    return { ok: true, value: testerOf(read.value) ?? { phoneNumber, state: 'pending' } };
  }

  async list(channel: ChannelContext): Promise<PlatformResult<Tester[]>> {
    const agentId = str(channel.config.agent_id);
    if (agentId === undefined) return { ok: true, value: [] };
    const listed = await this.api.call(channel, 'management', 'GET', `/v1/testers?agentId=${encodeURIComponent(agentId)}`);
    if (!listed.ok) return listed;
    const testers = ((listed.value.testers as Json[] | undefined) ?? []).map(testerOf).filter((t): t is Tester => t !== null);
    return { ok: true, value: testers };
  }

  async remove(channel: ChannelContext, phoneNumber: string): Promise<PlatformResult<null>> {
    const agentId = str(channel.config.agent_id);
    if (agentId === undefined) return noAgent();
    const removed = await this.api.call(
      channel,
      'management',
      'DELETE',
      `/v1/testers/${encodeURIComponent(phoneNumber)}?agentId=${encodeURIComponent(agentId)}`,
    );
    // One the platform does not know is removed already.
    if (!removed.ok && removed.code !== '404') return removed;
    return { ok: true, value: null };
  }
}

function withConfig(extra: Record<string, unknown>) {
  return (result: PlatformResult<PlatformChannelState>): PlatformResult<PlatformChannelState> =>
    result.ok ? { ok: true, value: { ...result.value, config: { ...result.value.config, ...extra } } } : result;
}
