import { Registry } from 'prom-client';
import { ControllerMetrics } from './controller-metrics';
import { LeaderElectionMetrics } from './leader-election-metrics';
import { WorkQueueMetrics } from './workqueue-metrics';

/**
 * All runtime metrics on one registry owned by a manager (not prom-client's global one, so tests and benchmarks can
 * run several managers in one process).
 */
export class RuntimeMetrics {
  readonly controllers: ControllerMetrics;
  readonly workQueues: WorkQueueMetrics;
  readonly leaderElection: LeaderElectionMetrics;

  constructor(public readonly registry: Registry = new Registry()) {
    this.controllers = new ControllerMetrics(registry);
    this.workQueues = new WorkQueueMetrics(registry);
    this.leaderElection = new LeaderElectionMetrics(registry);
  }
}
