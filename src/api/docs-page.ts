/**
 * The look of the API reference page at /v1/docs: the product's name, logo and colours over the
 * reference renderer served from its package (nothing is loaded from elsewhere).
 */
export const PRODUCT_NAME = 'Parley';
export const PAGE_TITLE = `${PRODUCT_NAME} API reference`;

const INK = '#14213d';
const ACCENT = '#0f766e';

/** Two speech bubbles and the name; white on the page's top bar. */
export const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="168" height="40" viewBox="0 0 168 40" role="img" aria-label="${PRODUCT_NAME}">
<path d="M4 6h22a4 4 0 0 1 4 4v12a4 4 0 0 1-4 4H14l-6 6v-6H4a4 4 0 0 1-4-4V10a4 4 0 0 1 4-4z" fill="#ffffff"/>
<path d="M22 14h14a4 4 0 0 1 4 4v9a4 4 0 0 1-4 4h-1v5l-5-5h-8a4 4 0 0 1-4-4v-9a4 4 0 0 1 4-4z" fill="#5eead4"/>
<text x="50" y="28" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="22" font-weight="700" fill="#ffffff">${PRODUCT_NAME}</text>
</svg>`;

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 40">
<rect width="40" height="40" rx="8" fill="${ACCENT}"/>
<path d="M8 9h18a3 3 0 0 1 3 3v10a3 3 0 0 1-3 3H16l-5 5v-5H8a3 3 0 0 1-3-3V12a3 3 0 0 1 3-3z" fill="#ffffff"/>
</svg>`;

export const PAGE_CSS = `
body { margin: 0; background: #f6f8fa; }
.swagger-ui, .swagger-ui .info .title, .swagger-ui .opblock-tag, .swagger-ui .opblock .opblock-summary-description,
.swagger-ui .markdown p, .swagger-ui .markdown li, .swagger-ui table, .swagger-ui .btn, .swagger-ui input, .swagger-ui select {
  font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
}
.swagger-ui .topbar { background: ${INK}; padding: 12px 0; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .topbar-wrapper img { height: 40px; }
.swagger-ui .wrapper { max-width: 1180px; padding: 0 24px; }
.swagger-ui .info { margin: 32px 0 24px; }
.swagger-ui .info .title { color: ${INK}; font-size: 32px; }
.swagger-ui .info .description .markdown p, .swagger-ui .info .description .markdown li { font-size: 15px; line-height: 1.6; color: #24292f; }
.swagger-ui .info .description .markdown h2 { font-size: 20px; margin: 24px 0 8px; color: ${INK}; }
.swagger-ui .markdown code, .swagger-ui .renderedMarkdown code { background: #eef2f6; color: ${INK}; padding: 1px 5px; border-radius: 4px; }
.swagger-ui .scheme-container { background: #ffffff; box-shadow: none; border-bottom: 1px solid #d8dee4; }
.swagger-ui .opblock-tag { font-size: 20px; color: ${INK}; border-bottom: 1px solid #d8dee4; }
.swagger-ui .opblock-tag small { font-size: 14px; color: #57606a; }
.swagger-ui .opblock { border-radius: 8px; box-shadow: none; }
.swagger-ui .opblock .opblock-summary-description { font-size: 14px; color: #24292f; }
.swagger-ui .btn.authorize { border-color: ${ACCENT}; color: ${ACCENT}; }
.swagger-ui .btn.authorize svg { fill: ${ACCENT}; }
.swagger-ui .btn.execute { background: ${ACCENT}; border-color: ${ACCENT}; }
.swagger-ui a.nostyle, .swagger-ui .info a { color: ${ACCENT}; }
`;

/** Options of the reference renderer: lists open, models folded, a filter box, durations shown. */
export const UI_CONFIG = {
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  defaultModelExpandDepth: 3,
  displayRequestDuration: true,
  filter: true,
  // A pasted token stays in the page's memory only: this origin is the administration app's too.
  persistAuthorization: false,
  tryItOutEnabled: false,
} as const;

/**
 * The headers of every answer under /v1/docs: the page shares its origin with the administration
 * app, so it gets the app's protections (no framing, nothing loaded or sent elsewhere). The
 * renderer sets style attributes in the markup it builds, hence `'unsafe-inline'` for styles
 * only; its scripts are files served here.
 */
export const DOCS_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; object-src 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};
