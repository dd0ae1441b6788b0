import type { InboundEvent } from '../../connectors/connector.js';
import type { Channel } from '../channels/view.js';
import type { InboundContext, InboundTrace } from './context.js';
import { applyDelivered } from './delivered.js';
import { applyEcho } from './echo.js';
import { applyMessage } from './message.js';
import { applyOptIn } from './opt-in.js';
import { applyOptOut } from './opt-out.js';
import { applyPostback } from './postback.js';
import { applyRead } from './read.js';
import { applyStatusReport } from './status-report.js';

/** Hands one inbound event to the handler of its kind (one file per kind). */
export async function applyEvent(ctx: InboundContext, channel: Channel, event: InboundEvent, trace: InboundTrace): Promise<void> {
  switch (event.kind) {
    case 'message':
      return applyMessage(ctx, channel, event, trace);
    case 'echo':
      return applyEcho(ctx, channel, event, trace);
    case 'delivered':
      return applyDelivered(ctx, channel, event, trace);
    case 'read':
      return applyRead(ctx, channel, event, trace);
    case 'postback':
      return applyPostback(ctx, channel, event, trace);
    case 'opt_in':
      return applyOptIn(ctx, channel, event, trace);
    case 'status':
      return applyStatusReport(ctx, channel, event, trace);
    case 'opt_out':
      return applyOptOut(ctx, channel, event);
    default:
      return unknownEvent(event);
  }
}

/** The switch above names every kind: a kind added to the contract without a case fails to compile here. */
function unknownEvent(event: never): never {
  throw new Error(`inbound event of unknown kind: ${(event as { kind?: unknown }).kind}`);
}
