import type { FastifyInstance } from 'fastify';
import { CONTROL_PREFIX, controlError } from '../shared/control.js';
import { asRecord, type JsonRecord } from '../shared/values.js';
import type { NluContext } from './context.js';
import { buildModel, modelView } from './model.js';

// Control API: the loaded model (what a training run would have produced) and the auth token.

export function registerControl(app: FastifyInstance, ctx: NluContext): void {
  const p = CONTROL_PREFIX;
  const { state } = ctx;

  app.get(`${p}/model`, async () => ({ model: modelView(state.model) }));

  // Loads a model in place of the current one, as a new model replaces the old on the server.
  app.put(`${p}/model`, async (req, reply) => {
    const model = buildModel(req.body, state.clock.now());
    if (typeof model === 'string') return controlError(reply, 400, model);
    state.model = model;
    return { model: modelView(model) };
  });

  app.delete(`${p}/model`, async () => {
    state.model = null;
    return { model: null };
  });

  app.get(`${p}/token`, async () => ({ token: state.token }));

  // `{token: "..."}` turns token auth on; `{token: null}` turns it off.
  app.put(`${p}/token`, async (req, reply) => {
    const body = asRecord(req.body);
    const token = body.token;
    if (token !== null && (typeof token !== 'string' || token === '' || token.length > 512)) {
      return controlError(reply, 400, 'token must be a non-empty string (at most 512 characters) or null');
    }
    state.token = token;
    return { token };
  });

  app.delete(`${p}/token`, async () => {
    state.token = null;
    return { token: null };
  });

  app.get(`${p}/state`, async (): Promise<JsonRecord> => ({ model: modelView(state.model), token: state.token, faults: state.faults.list() }));

  app.post(`${p}/reset`, async () => {
    state.model = null;
    state.token = null;
    state.faults.clear();
    state.requests.clear();
    state.webhooks.clear();
    return { reset: true, model: null, token: null };
  });
}
