import { CopyButton } from '../../ui';

/** The one tag that puts the web chat on a page, pointing at this server. */
export function widgetSnippet(origin: string, channelId: string): string {
  return `<script src="${origin}/widget.js" data-channel-id="${channelId}"></script>`;
}

export function WidgetSnippet({ channelId }: { channelId: string }) {
  const snippet = widgetSnippet(window.location.origin, channelId);
  return (
    <section className="ch-card" aria-labelledby="ch-snippet-title">
      <h3 id="ch-snippet-title">Put the chat on your site</h3>
      <p className="ch-hint">Paste this tag into your pages, before the closing body tag. The page's origin must be on the whitelist.</p>
      <pre className="ch-code">
        <code id="ch-widget-snippet" data-testid="widget-snippet">
          {snippet}
        </code>
      </pre>
      <CopyButton value={snippet} label="Copy snippet" fallbackTargetId="ch-widget-snippet" />
      <p className="ch-hint">Optional attributes: data-title, data-color, data-position (right or left), data-open="true", data-external-contact-id.</p>
    </section>
  );
}
