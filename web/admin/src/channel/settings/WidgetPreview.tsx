import { useEffect, useState } from 'react';
import { Button } from '../../ui';

/** The server's page that loads widget.js for one channel (the same origin as this app). */
export function previewUrl(channelId: string): string {
  return `/widget/preview/${encodeURIComponent(channelId)}`;
}

/**
 * The real widget, live, in a frame of the server's own preview page. The page's origin is this
 * server's, so the server's origin must be on the whitelist for the chat to connect.
 */
export function WidgetPreview({ channelId, allowed, onAllow }: { channelId: string; allowed: boolean; onAllow?: () => void }) {
  const [available, setAvailable] = useState<boolean | null>(null);
  useEffect(() => {
    let live = true;
    fetch(previewUrl(channelId), { method: 'HEAD', credentials: 'same-origin' }).then(
      (r) => live && setAvailable(r.ok),
      () => live && setAvailable(false),
    );
    return () => {
      live = false;
    };
  }, [channelId]);

  return (
    <section className="ch-card" aria-labelledby="ch-preview-title">
      <h3 id="ch-preview-title">Live preview</h3>
      {!allowed && (
        <div className="ch-row">
          <p className="ch-hint">The preview is served from {window.location.origin}, which is not on the whitelist yet, so the chat will refuse to connect.</p>
          {onAllow && <Button onPress={onAllow}>Add {window.location.origin} to the whitelist</Button>}
        </div>
      )}
      {available === false && (
        <p className="ch-hint">This server has no preview page. Put the snippet above on a page of a whitelisted origin to try the chat.</p>
      )}
      {available && <iframe className="ch-preview" title="Web chat preview" src={previewUrl(channelId)} data-testid="widget-preview" />}
    </section>
  );
}
