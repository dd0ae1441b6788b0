import { Button } from '../../ui';

/** The server's page that loads widget.js for one channel (the same origin as this app). */
export function previewUrl(channelId: string): string {
  return `/widget/preview/${encodeURIComponent(channelId)}`;
}

/**
 * The real widget, live, in a frame of the server's own preview page. That page's origin is this
 * server's, so the chat connects only once the server's origin is on the channel's whitelist;
 * until then the frame is not shown and a button offers to add it.
 */
export function WidgetPreview({
  channelId,
  allowed,
  onAllow,
  title = 'Live preview',
}: {
  channelId: string;
  allowed: boolean;
  onAllow: () => void;
  title?: string;
}) {
  const here = window.location.origin;
  return (
    <section className="ch-card" aria-labelledby="ch-preview-title">
      <h3 id="ch-preview-title">{title}</h3>
      {allowed ? (
        <iframe className="ch-preview" title="Web chat preview" src={previewUrl(channelId)} data-testid="widget-preview" />
      ) : (
        <>
          <p className="ch-hint">The preview page is served from {here}, which is not on this channel's whitelist, so the chat would refuse to connect.</p>
          <Button onPress={onAllow}>Add {here} to the whitelist</Button>
        </>
      )}
    </section>
  );
}
