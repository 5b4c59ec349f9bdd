/** Polls `check` until it returns true; throws with the description and the last error after the deadline. */
export async function waitUntil(
  description: string,
  check: () => Promise<boolean>,
  { timeoutMilliseconds, intervalMilliseconds = 200, abortWhen }: { timeoutMilliseconds: number; intervalMilliseconds?: number; abortWhen?: () => string | undefined },
): Promise<void> {
  const deadline = Date.now() + timeoutMilliseconds;
  let lastError: unknown;
  for (;;) {
    try {
      if (await check()) return;
    } catch (error) {
      lastError = error;
    }
    const abortReason = abortWhen?.();
    if (abortReason) throw new Error(`${description}: ${abortReason}`, { cause: lastError });
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMilliseconds} ms waiting for ${description}`, { cause: lastError });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMilliseconds));
  }
}
