import { Type } from '@sinclair/typebox';
import { errorBody } from '../error-body.js';
import type { RoutePlugin } from '../route-group.js';

/**
 * `/widget/preview/{channel_id}`: a bare page with the one script tag of the web chat, open, for
 * the administration app's live preview and local trial (an iframe of the same origin). Public
 * like `/widget.js`: it shows nothing of the channel; the chat itself still asks the channel's
 * whitelist, where this server's own origin must be listed. The widget styles its shadow root
 * with a style element, so this page allows inline styles, unlike the app's own pages; only the
 * server's own pages may frame it.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "frame-ancestors 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "object-src 'none'",
].join('; ');

const Params = Type.Object({ channel_id: Type.String() });

function page(channelId: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Web chat preview</title></head>
<body>
<main>
<h1>Web chat preview</h1>
<p>This page stands in for your site: the chat below is the real widget of channel ${channelId}.</p>
</main>
<script src="/widget.js" data-channel-id="${channelId}" data-open="true"></script>
</body>
</html>
`;
}

export const widgetPreviewRoutes: RoutePlugin = async (app) => {
  app.get('/widget/preview/:channel_id', { schema: { hide: true, params: Params } }, async (request, reply) => {
    const { channel_id } = request.params;
    // Only an id can reach the page: nothing of the request is written into it otherwise.
    if (!/^[1-9][0-9]{0,15}$/.test(channel_id)) {
      return reply.code(404).send(errorBody(404, [{ message: 'Resource /widget/preview/... not found.' }]));
    }
    return reply
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Content-Security-Policy', CSP)
      .header('X-Frame-Options', 'SAMEORIGIN')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Referrer-Policy', 'same-origin')
      .header('Cache-Control', 'no-cache')
      .send(page(channel_id));
  });
};
