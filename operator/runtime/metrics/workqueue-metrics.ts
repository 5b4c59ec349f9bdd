import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { WorkQueueMetricsRecorder } from '../workqueue/work-queue-metrics';

/** client-go's workqueue buckets: 10 ns … 10 s, ×10 per bucket. */
const WORKQUEUE_DURATION_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1, 10];

/** The `workqueue_*` metrics, labelled like controller-runtime (`name` and `controller` both carry the controller). */
export class WorkQueueMetrics {
  private readonly depth: Gauge<'name' | 'controller'>;
  private readonly adds: Counter<'name' | 'controller'>;
  private readonly queueDuration: Histogram<'name' | 'controller'>;
  private readonly workDuration: Histogram<'name' | 'controller'>;
  private readonly retries: Counter<'name' | 'controller'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ['name', 'controller'] as const;
    this.depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames, registers });
    this.adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames, registers });
    this.queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames,
      buckets: WORKQUEUE_DURATION_BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames,
      buckets: WORKQUEUE_DURATION_BUCKETS,
      registers,
    });
    this.retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames, registers });
  }

  /** The recorder one queue reports to. */
  forQueue(name: string): WorkQueueMetricsRecorder {
    const labels = { name, controller: name };
    this.depth.set(labels, 0);
    this.adds.inc(labels, 0);
    this.retries.inc(labels, 0);
    return {
      added: () => this.adds.inc(labels),
      depthChanged: (depth) => this.depth.set(labels, depth),
      started: (queuedSeconds) => this.queueDuration.observe(labels, queuedSeconds),
      finished: (workSeconds) => this.workDuration.observe(labels, workSeconds),
      retried: () => this.retries.inc(labels),
    };
  }
}
