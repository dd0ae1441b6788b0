import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

/**
 * OpenAPI 3.1 generated from the route schemas. Response schemas are kept under `x-response` so
 * they document without changing how replies are serialised; `x-body` documents a body whose
 * checks are done by the domain (per channel type).
 */
export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley Messaging API',
        version: '1.0.0',
        description: 'One HTTP+JSON API to send and receive messages over many platforms. Events of each channel are delivered to its webhook, signed with X-Hub-Signature.',
      },
      servers: [{ url: baseUrl }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'The API token from the administration app or `parley token create`.' },
          query: { type: 'apiKey', in: 'query', name: 'access_token' },
        },
      },
      security: [{ bearer: [] }, { query: [] }],
    },
    transform: ({ schema, url }) => {
      const s = { ...(schema as Record<string, unknown>) };
      if (s['x-response']) s.response = s['x-response'];
      if (s['x-body']) s.body = s['x-body'];
      delete s['x-response'];
      delete s['x-body'];
      return { schema: s as never, url: url.startsWith('/v1') ? url.slice(3) || '/' : url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs' });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
