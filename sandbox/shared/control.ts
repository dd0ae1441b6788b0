import type { FastifyReply } from 'fastify';
import type { FaultQueue } from './faults.js';
import type { OutboundLog, OutboundRecord } from './outbound.js';
import type { RequestLog } from './request-log.js';
import type { SandboxClock } from './clock.js';
import type { FastifyInstance } from 'fastify';
import { asRecord, optNumber } from './values.js';

// Pieces of the `/_sandbox` control API shared by every stand-in.

export const CONTROL_PREFIX = '/_sandbox';

export function controlError(reply: FastifyReply, status: number, message: string, extra: Record<string, unknown> = {}): FastifyReply {
  return reply.code(status).send({ error: { message, ...extra } });
}

export function isPlatformPath(path: string): boolean {
  return !path.startsWith(CONTROL_PREFIX) && !path.startsWith('/_media');
}

export function outboundView(record: OutboundRecord): Record<string, unknown> {
  let body: unknown = record.requestBody;
  try {
    body = JSON.parse(record.requestBody) as unknown;
  } catch {
    // not JSON (form bodies, handshakes): keep the raw text
  }
  const out: Record<string, unknown> = {
    id: record.id,
    kind: record.kind,
    at: record.at,
    method: record.method,
    url: record.url,
    request_headers: record.requestHeaders,
    request_body: body,
    raw_request_body: record.requestBody,
    status: record.status,
    ok: record.ok,
    response_body: record.body,
    duration_ms: record.durationMs,
  };
  if (record.error !== undefined) out.error = record.error;
  return out;
}

export interface CommonControlDeps {
  faults: FaultQueue;
  requests: RequestLog;
  outbound: OutboundLog;
  clock: SandboxClock;
  /** Re-sends a recorded outbound call unchanged (same body and signature headers). */
  redeliver(record: OutboundRecord): Promise<OutboundRecord>;
}

/** Routes every stand-in has: faults, clock, request log, webhook log, settle. */
export function registerCommonControlRoutes(app: FastifyInstance, deps: CommonControlDeps): void {
  const p = CONTROL_PREFIX;
  app.post(`${p}/faults`, async (req, reply) => {
    const result = deps.faults.add(asRecord(req.body));
    if (typeof result === 'string') return controlError(reply, 400, result);
    return reply.code(201).send({ fault: result });
  });
  app.get(`${p}/faults`, async () => ({ faults: deps.faults.list() }));
  app.delete(`${p}/faults`, async () => {
    deps.faults.clear();
    return { faults: [] };
  });

  app.get(`${p}/clock`, async () => ({ now: deps.clock.now(), offset_ms: deps.clock.offsetMs() }));
  app.post(`${p}/clock/advance`, async (req, reply) => {
    const ms = optNumber(asRecord(req.body).ms);
    if (ms === undefined || ms < 0) return controlError(reply, 400, 'ms must be a non-negative number');
    return { now: deps.clock.advance(ms), offset_ms: deps.clock.offsetMs() };
  });

  app.get<{ Querystring: { path_contains?: string; since_id?: string } }>(`${p}/requests`, async (req) => {
    const contains = req.query.path_contains;
    const since = Number(req.query.since_id ?? 0);
    return {
      requests: deps.requests.entries.filter((e) => e.id > since && (contains === undefined || e.path.includes(contains))),
    };
  });
  app.delete(`${p}/requests`, async () => {
    deps.requests.clear();
    return { requests: [] };
  });

  app.get<{ Querystring: { kind?: string; since_id?: string } }>(`${p}/webhooks`, async (req) => {
    await deps.outbound.settle();
    const since = Number(req.query.since_id ?? 0);
    return {
      webhooks: deps.outbound.records.filter((r) => r.id > since && (req.query.kind === undefined || r.kind === req.query.kind)).map(outboundView),
    };
  });
  app.post<{ Params: { id: string } }>(`${p}/webhooks/:id/redeliver`, async (req, reply) => {
    const record = deps.outbound.get(Number(req.params.id));
    if (!record) return controlError(reply, 404, 'no such webhook delivery');
    const again = await deps.redeliver(record);
    return { webhook: outboundView(again) };
  });
  app.post(`${p}/settle`, async () => {
    await deps.outbound.settle();
    return { settled: true };
  });
}
