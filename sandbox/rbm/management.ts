import { createPublicKey } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomAlnum, randomHex } from '../shared/ids.js';
import { asRecord, isRecord, optString, type JsonRecord } from '../shared/values.js';
import { agentFor, bearer, mayActFor } from './auth.js';
import { applyFault, type RbContext } from './context.js';
import { invalidArgument, notFound, permissionDenied, RpcError } from './errors.js';
import type { RbAgent, RbBrand } from './state.js';
import { checkNewAgent, checkQuestionnaire, checkVerificationContact, hasContact } from './agent-rules.js';

// The management API under {managementPrefix}/v1 (its own OAuth scope): brands, agents, their
// verification and launch, the regions an agent launches in, and testers.

const REGION_PREFIX = '/v1/regions/';
/** Tester invitations an agent may send per day, and in all. */
export const TESTER_LIMITS = { perDay: 20, total: 200 };
const DAY_MS = 86_400_000;

/** A launch key as the API names it: `/v1/regions/<carrier>`; a bare carrier is accepted too. */
export function carrierOf(key: string): string {
  return key.startsWith(REGION_PREFIX) ? key.slice(REGION_PREFIX.length) : key;
}

export function launchView(ctx: RbContext, agent: RbAgent): JsonRecord {
  const details: JsonRecord = {};
  for (const [carrier, launchState] of agent.launch) {
    const comment = agent.launchComments?.get(carrier);
    details[`${REGION_PREFIX}${carrier}`] = { launchState, ...(comment === undefined ? {} : { comment }) };
  }
  return { name: `brands/${agent.brandId}/agents/${agent.id}/launch`, [ctx.options.productKey]: { launchDetails: details } };
}

function agentResource(ctx: RbContext, agent: RbAgent): JsonRecord {
  return {
    name: `brands/${agent.brandId}/agents/${agent.id}`,
    displayName: agent.displayName,
    [`${ctx.options.productKey}Agent`]: { ...agent.profile, hostingRegion: agent.region.toUpperCase() },
  };
}

function testerView(agentId: string, phone: string, status: string): JsonRecord {
  return { name: `testers/${phone}`, agentId, phoneNumber: phone, inviteStatus: status };
}

function e164(raw: string | undefined): string {
  const phone = (raw ?? '').trim();
  if (!/^\+\d{6,15}$/.test(phone)) throw invalidArgument(`Invalid phone number: ${raw ?? ''}`);
  return phone;
}

export function registerManagement(app: FastifyInstance, ctx: RbContext): void {
  const { state } = ctx;
  const base = `${ctx.options.managementPrefix}/v1`;

  /** A brand the token's partner owns (or whose agent the token was issued for). */
  const brandFor = (req: FastifyRequest, brandId: string): RbBrand => {
    const token = bearer(ctx, req, 'management');
    const brand = state.brands.get(brandId);
    if (!brand) throw notFound();
    const owns = token.email !== undefined && token.email === brand.ownerEmail;
    const viaAgent = [...state.agents.values()].some((a) => a.brandId === brandId && mayActFor(token, a));
    if (!owns && !viaAgent) throw permissionDenied();
    return brand;
  };
  const agentOf = (req: FastifyRequest, brandId: string, agentId: string): RbAgent => {
    const agent = agentFor(ctx, req, agentId, 'management');
    if (agent.brandId !== brandId) throw notFound();
    return agent;
  };

  app.post(`${base}/brands`, async (req) => {
    const token = bearer(ctx, req, 'management');
    if (token.email === undefined) throw permissionDenied('Brands are made with a service account.');
    const displayName = optString(asRecord(req.body).displayName);
    if (!displayName) throw invalidArgument('displayName is required.');
    const brand: RbBrand = { id: randomHex(8), displayName, ownerEmail: token.email };
    state.brands.set(brand.id, brand);
    return { name: `brands/${brand.id}`, displayName };
  });
  app.get(`${base}/brands`, async (req) => {
    const token = bearer(ctx, req, 'management');
    const visible = [...state.brands.values()].filter(
      (b) => b.ownerEmail === token.email || [...state.agents.values()].some((a) => a.brandId === b.id && mayActFor(token, a)),
    );
    return { brands: visible.map((b) => ({ name: `brands/${b.id}`, displayName: b.displayName })) };
  });
  app.get<{ Params: { brand: string } }>(`${base}/brands/:brand`, async (req) => {
    const brand = brandFor(req, req.params.brand);
    return { name: `brands/${brand.id}`, displayName: brand.displayName };
  });

  app.post<{ Params: { brand: string } }>(`${base}/brands/:brand/agents`, async (req) => {
    const brand = brandFor(req, req.params.brand);
    await applyFault(ctx, 'agents');
    const { displayName, hostingRegion, profile } = checkNewAgent(asRecord(req.body), ctx.options.productKey);
    const partner = state.partners.get(brand.ownerEmail);
    const owner = partner ?? [...state.agents.values()].find((a) => a.serviceAccountEmail === brand.ownerEmail);
    if (!owner) throw permissionDenied();
    const agent: RbAgent = {
      id: `${displayName
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '_')
        .slice(0, 20)}_${randomAlnum(8).toLowerCase()}_agent`,
      brandId: brand.id,
      displayName,
      region: hostingRegion.toLowerCase(),
      profile,
      serviceAccountEmail: brand.ownerEmail,
      publicKey: createPublicKey(owner.publicKey.export({ type: 'spki', format: 'pem' })),
      verification: 'VERIFICATION_STATE_UNVERIFIED',
      webhook: null,
      launch: new Map(),
      launchComments: new Map(),
      testers: new Map(),
      testerInvites: [],
    };
    state.agents.set(agent.id, agent);
    return agentResource(ctx, agent);
  });

  app.get<{ Params: { brand: string } }>(`${base}/brands/:brand/agents`, async (req) => {
    const brand = brandFor(req, req.params.brand);
    return { agents: [...state.agents.values()].filter((a) => a.brandId === brand.id).map((a) => agentResource(ctx, a)) };
  });
  app.get<{ Params: { brand: string; agent: string } }>(`${base}/brands/:brand/agents/:agent`, async (req) =>
    agentResource(ctx, agentOf(req, req.params.brand, req.params.agent)),
  );
  app.get<{ Params: { brand: string; agent: string } }>(`${base}/brands/:brand/agents/:agent/verification`, async (req) => {
    const agent = agentOf(req, req.params.brand, req.params.agent);
    await applyFault(ctx, 'verification');
    return { name: `brands/${agent.brandId}/agents/${agent.id}/verification`, verificationState: agent.verification };
  });
  app.get<{ Params: { brand: string; agent: string } }>(`${base}/brands/:brand/agents/:agent/launch`, async (req) =>
    launchView(ctx, agentOf(req, req.params.brand, req.params.agent)),
  );

  /** Puts the named regions in PENDING (a launched one stays launched). */
  const requestRegions = (agent: RbAgent, product: unknown): void => {
    const details = isRecord(product) ? product.launchDetails : undefined;
    if (!isRecord(details) || Object.keys(details).length === 0)
      throw invalidArgument(`${ctx.options.productKey}.launchDetails must name at least one region.`);
    for (const key of Object.keys(details)) {
      const carrier = carrierOf(key);
      if (agent.launch.get(carrier) !== 'LAUNCH_STATE_LAUNCHED') {
        agent.launch.set(carrier, 'LAUNCH_STATE_PENDING');
        agent.launchComments.delete(carrier);
      }
    }
  };

  // `agents/{agent}:requestVerification` and `agents/{agent}:requestLaunch`: the colon is part of the segment.
  app.post<{ Params: { brand: string; action: string } }>(`${base}/brands/:brand/agents/:action`, async (req) => {
    const [agentId, verb] = req.params.action.split(':');
    const agent = agentOf(req, req.params.brand, agentId ?? '');
    const body = asRecord(req.body);
    if (verb === 'requestVerification') {
      await applyFault(ctx, 'verification');
      checkVerificationContact(body);
      if (agent.verification !== 'VERIFICATION_STATE_VERIFIED') agent.verification = 'VERIFICATION_STATE_PENDING';
      return { name: `brands/${agent.brandId}/agents/${agent.id}/verification`, verificationState: agent.verification };
    }
    if (verb === 'requestLaunch') {
      await applyFault(ctx, 'launch');
      if (agent.verification !== 'VERIFICATION_STATE_VERIFIED')
        throw new RpcError(400, 'FAILED_PRECONDITION', 'The agent must be verified before it is launched.');
      if (agent.launch.size > 0) throw new RpcError(400, 'FAILED_PRECONDITION', 'The agent has a launch already; add regions with PATCH .../launch.');
      const product = asRecord(asRecord(body.agentLaunch)[ctx.options.productKey]);
      checkQuestionnaire(product, ctx.options.productKey);
      if (!hasContact(agent.profile))
        throw new RpcError(400, 'FAILED_PRECONDITION', 'An agent needs at least one phone number or e-mail address with a label to launch.');
      requestRegions(agent, product);
      return launchView(ctx, agent);
    }
    throw notFound(`Method not found: ${verb ?? ''}`);
  });

  // Later regions are added to the launch with PATCH.
  app.patch<{ Params: { brand: string; agent: string } }>(`${base}/brands/:brand/agents/:agent/launch`, async (req) => {
    const agent = agentOf(req, req.params.brand, req.params.agent);
    await applyFault(ctx, 'launch');
    requestRegions(agent, asRecord(req.body)[ctx.options.productKey]);
    return launchView(ctx, agent);
  });

  // The regions an agent may launch in: one per carrier the stand-in knows.
  app.get(`${base}/regions`, async (req) => {
    bearer(ctx, req, 'management');
    const carriers = new Set<string>(['sandbox-carrier']);
    for (const phone of state.phones.values()) carriers.add(phone.carrier);
    return { regions: [...carriers].sort().map((c) => ({ name: `${REGION_PREFIX}${c}`, displayName: c, managementType: 'CARRIER_MANAGED' })) };
  });

  // Testers of an agent that is not launched yet.
  app.post(`${base}/testers`, async (req) => {
    const body = asRecord(req.body);
    const agent = agentFor(ctx, req, optString(body.agentId), 'management');
    await applyFault(ctx, 'testers');
    const phone = e164(optString(body.phoneNumber));
    const known = agent.testers.get(phone);
    if (known !== undefined) throw new RpcError(409, 'ALREADY_EXISTS', `${phone} is a tester of this agent already.`);
    const now = state.clock.now();
    agent.testerInvites = (agent.testerInvites ?? []).filter((t) => t > now - DAY_MS);
    if (agent.testers.size >= TESTER_LIMITS.total) throw new RpcError(429, 'RESOURCE_EXHAUSTED', `An agent has at most ${TESTER_LIMITS.total} testers.`);
    if (agent.testerInvites.length >= TESTER_LIMITS.perDay)
      throw new RpcError(429, 'RESOURCE_EXHAUSTED', `At most ${TESTER_LIMITS.perDay} tester invitations a day.`);
    agent.testerInvites.push(now);
    agent.testers.set(phone, 'PENDING');
    return testerView(agent.id, phone, 'PENDING');
  });
  app.get<{ Querystring: Record<string, string | undefined> }>(`${base}/testers`, async (req) => {
    const agent = agentFor(ctx, req, req.query.agentId, 'management');
    return { testers: [...agent.testers].map(([phone, status]) => testerView(agent.id, phone, status)) };
  });
  app.get<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>(`${base}/testers/:phone`, async (req) => {
    const agent = agentFor(ctx, req, req.query.agentId, 'management');
    const phone = e164(req.params.phone);
    const status = agent.testers.get(phone);
    if (status === undefined) throw notFound();
    return testerView(agent.id, phone, status);
  });
  app.delete<{ Params: { phone: string }; Querystring: Record<string, string | undefined> }>(`${base}/testers/:phone`, async (req) => {
    const agent = agentFor(ctx, req, req.query.agentId, 'management');
    await applyFault(ctx, 'testers');
    const phone = e164(req.params.phone);
    if (!agent.testers.delete(phone)) throw notFound();
    return {};
  });
}
