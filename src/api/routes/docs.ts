import swaggerUi from '@fastify/swagger-ui';
import { FAVICON_SVG, LOGO_SVG, PAGE_CSS, PAGE_TITLE, UI_CONFIG } from '../docs-page.js';
import type { RoutePlugin } from '../route-group.js';

/** The API reference page and the OpenAPI document (built by openapi.ts), public. */
export const docsRoutes: RoutePlugin = async (app) => {
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
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
