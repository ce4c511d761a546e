import { ERROR_STATUS, type ErrorCode } from './contract/index.js';

/** An error a route answers with: `{code, message, fix?}` and the code's HTTP status. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fix?: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
  body(): { code: string; message: string; fix?: string; data?: unknown } {
    return {
      code: this.code,
      message: this.message,
      ...(this.fix ? { fix: this.fix } : {}),
      ...(this.data !== undefined ? { data: this.data } : {}),
    };
  }
}
