/** One reply of a pipeline: a value or the error reply Redis sent for that command. */
export interface PipelineReply {
  readonly error?: Error;
  readonly value?: unknown;
}

/**
 * Normalises what ioredis' `pipeline().exec()` resolves to (`[error, value][]`, or null when the pipeline
 * could not be sent) and checks the expected count, so callers can destructure safely.
 */
export function pipelineReplies(replies: [Error | null, unknown][] | null, expected: number): PipelineReply[] {
  if (replies === null || replies.length !== expected) {
    throw new Error(`pipeline returned ${replies === null ? 'nothing' : `${replies.length} replies`}, expected ${expected}`);
  }
  return replies.map(([error, value]) => (error === null ? { value } : { error }));
}
