/**
 * What a {@link WorkQueue} reports; implemented with prom-client in `metrics/workqueue-metrics.ts` and a no-op by
 * default so the queue itself does not depend on a registry.
 */
export interface WorkQueueMetricsRecorder {
  added(): void;
  depthChanged(depth: number): void;
  /** An item left the queue for a worker after waiting `queuedSeconds`. */
  started(queuedSeconds: number): void;
  /** A worker finished an item after `workSeconds`. */
  finished(workSeconds: number): void;
  retried(): void;
}

export const noopWorkQueueMetrics: WorkQueueMetricsRecorder = {
  added: () => undefined,
  depthChanged: () => undefined,
  started: () => undefined,
  finished: () => undefined,
  retried: () => undefined,
};
