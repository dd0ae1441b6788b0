import type { AckErrorCode, RejectionCode } from '../../schemas/chat.js';

/** A chat request the server refuses; the transport answers it as an error acknowledgement. */
export class ChatError extends Error {
  constructor(
    readonly code: AckErrorCode,
    message: string,
    readonly field?: string,
    /** Seconds after which the same request may succeed (limits). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  static invalid(field: string, message: string): ChatError {
    return new ChatError(422, message, field);
  }
}

/** Why a connection was refused (connection_rejected). */
export interface Rejection {
  ok: false;
  code: RejectionCode;
  message: string;
  retryAfter?: number;
}
