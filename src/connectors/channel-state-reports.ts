import type { ChannelContext, ChannelStateReports, PlatformChannelState } from './connector.js';

type Listener = (channel: ChannelContext, state: PlatformChannelState) => void;

/**
 * Channel states connectors report from their ordinary calls, passed on to whoever listens (the
 * runtime connects the platform-state service once it exists). A listener that throws does not
 * stop the others, nor the connector's call.
 */
export class ChannelStateBus implements ChannelStateReports {
  private readonly listeners = new Set<Listener>();

  listen(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  report(channel: ChannelContext, state: PlatformChannelState): void {
    for (const listener of this.listeners) {
      try {
        listener(channel, state);
      } catch {
        // A report is advice; the call that made it goes on.
      }
    }
  }
}
