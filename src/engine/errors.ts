/**
 * A mistake in how the tool was invoked (bad path, bad option value). The CLI prints the message
 * without a stack trace and exits with code 2; anything else thrown is an internal error.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export function isUsageError(error: unknown): error is UsageError {
  return error instanceof UsageError;
}
