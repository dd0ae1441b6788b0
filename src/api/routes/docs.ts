import swaggerUi from '@fastify/swagger-ui';
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { DOCS_SECURITY_HEADERS, FAVICON_SVG, LOGO_SVG, PAGE_CSS, PAGE_TITLE, UI_CONFIG } from '../docs-page.js';
import type { RoutePlugin } from '../route-group.js';

/** The API reference page and the OpenAPI document (built by openapi.ts), public. */
export const docsRoutes: RoutePlugin = async (app) => {
  await app.register(docsPage);
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};

/** The reference page and its files, in a scope of their own whose every answer has the page's headers. */
const docsPage: RoutePlugin = async (app) => {
  app.addHook('onRequest', (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    void reply.headers(DOCS_SECURITY_HEADERS);
    done();
  });
  await app.register(swaggerUi, {
    routePrefix: '/v1/docs',
    uiConfig: UI_CONFIG,
    theme: {
      title: PAGE_TITLE,
      css: [{ filename: 'parley.css', content: PAGE_CSS }],
      favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: FAVICON_SVG }],
    },
    logo: { type: 'image/svg+xml', content: LOGO_SVG, href: './', target: '_self' },
  });
};
