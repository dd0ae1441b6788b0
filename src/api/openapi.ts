import type { FastifyInstance } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import swagger from '@fastify/swagger';
import { ComponentSchemas } from './openapi-components.js';
import { documentResponses, markRequiredHeaders } from './openapi-responses.js';
import { INFO_DESCRIPTION, TAGS } from './openapi-info.js';
import { ADMIN_API_PREFIX } from './scopes.js';
import { CSRF_HEADER, SESSION_COOKIE } from './admin-guard.js';

type Json = Record<string, unknown>;

/**
 * Documentation-only keys of route schemas (Fastify neither validates nor serialises with them):
 * - `x-response`: the answer of each status (success, and errors the route adds to the usual ones);
 * - `x-response-headers`: headers of a status beyond the usual ones;
 * - `x-body`: the body as documented, when the domain checks it per channel type;
 * - `x-headers`: request headers, checked by the route itself;
 * - `x-examples`: named request body examples;
 * - `x-beyond-specification`: kept in the document, marks what the messaging API specification lacks.
 */
const DOC_KEYS = ['x-response', 'x-response-headers', 'x-body', 'x-headers', 'x-examples'];

/** `https://host/prefix/v1` -> `/prefix/v1`: servers relative to the host the document was read from. */
export function apiPath(baseUrl: string): string {
  const path = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/**
 * OpenAPI 3.1 generated from the route schemas by @fastify/swagger. Named schemas become
 * components, every operation lists the errors it can answer and the headers it sends, and the
 * servers are relative, so "try it" works from whatever host name the page was opened on.
 * Registered on the app itself, before the scopes, so that it sees the routes of every scope;
 * the page and the document are served by routes/docs.ts.
 */
export async function registerOpenApi(app: FastifyInstance, baseUrl: string): Promise<void> {
  const components = new ComponentSchemas();
  const base = apiPath(baseUrl);
  // Paths outside the API (the health checks) are relative to the root the API sits under.
  const root = base.endsWith('/v1') ? base.slice(0, -3) || '/' : '/';

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Parley Messaging API', version: '1.0.0', description: INFO_DESCRIPTION },
      servers: [
        { url: base, description: 'This server, on the host name this document was read from' },
        ...(baseUrl.replace(/\/+$/, '') !== base ? [{ url: baseUrl.replace(/\/+$/, ''), description: 'The configured public address (PUBLIC_URL)' }] : []),
      ],
      tags: TAGS,
      components: {
        schemas: components.all() as never,
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'The access token from the administration or `parley token create`.' },
          query: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The same token as a query parameter.' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: SESSION_COOKIE,
            description: `The administration app's session, set by sign-in (\`__Host-${SESSION_COOKIE}\` over HTTPS).`,
          },
          csrf: {
            type: 'apiKey',
            in: 'header',
            name: CSRF_HEADER,
            description: "The session's CSRF token (`csrf_token` of the session), sent with every change.",
          },
        },
      },
      security: [{ bearer: [] }, { query: [] }],
    },
    transform: ({ schema, url, route }) => {
      const admin = adminOperation(url);
      // The administration app itself, and the token groups mounted again under /admin/api (the
      // same operations as under /v1), are not in the document; the app's own routes are.
      if (admin === null) return { schema: { hide: true } as never, url };
      const s = { ...(schema as Json) };
      if (admin) {
        s.tags ??= [ADMIN_TAG];
        const method = String(route.method);
        s.security = route.config?.adminSession === 'none' ? [] : [method === 'GET' || method === 'HEAD' ? { session: [] } : { session: [], csrf: [] }];
      }
      const security = s.security;
      const body = (s['x-body'] ?? s.body) as TSchema | undefined;
      s.response = documentResponses(
        (s['x-response'] ?? {}) as Record<string, TSchema>,
        (s['x-response-headers'] ?? {}) as Record<string, Record<string, Json>>,
        {
          authenticated: !(Array.isArray(security) && security.length === 0),
          hasBody: body !== undefined,
          hasQuery: s.querystring !== undefined,
          hasParams: s.params !== undefined || url.includes(':'),
          admin,
        },
        components,
      );
      if (body) s.body = components.ref(body);
      if (s['x-headers']) s.headers = s['x-headers'];
      // @fastify/swagger copies `x-` keys onto the operation: the examples are moved by transformObject.
      for (const key of DOC_KEYS) if (key !== 'x-examples') delete s[key];
      const inApi = url === '/v1' || url.startsWith('/v1/');
      if (!inApi) s.servers = [{ url: root }];
      return { schema: s as never, url: inApi ? url.slice(3) || '/' : url };
    },
    transformObject: (document) => {
      const openapi = ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Json;
      moveExamples(openapi);
      markRequiredHeaders(openapi);
      return openapi as never;
    },
  });
}

/** The tag of the administration app's own operations (see TAGS). */
const ADMIN_TAG = 'Administration';

/**
 * Whether a route is one of the administration app's own operations (true), a route of the
 * document's other parts (false), or one left out (null): the app's pages and its catch-all, and
 * the token groups the admin scope mounts again under /admin/api/v1.
 */
function adminOperation(url: string): boolean | null {
  if (url !== '/admin' && !url.startsWith('/admin/')) return false;
  if (!url.startsWith(`${ADMIN_API_PREFIX}/`)) return null;
  const rest = url.slice(ADMIN_API_PREFIX.length);
  if (rest === '/' || rest === '/*' || rest === '/v1' || rest.startsWith('/v1/')) return null;
  return true;
}

/** Named examples go on the request body's media type, where OpenAPI wants them. */
function moveExamples(document: Json): void {
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(item)) {
      const examples = operation['x-examples'];
      if (!examples) continue;
      delete operation['x-examples'];
      const media = ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined)?.['application/json'];
      if (media) media.examples = examples;
    }
  }
}
