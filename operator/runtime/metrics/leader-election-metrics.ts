import { Gauge, Registry } from 'prom-client';

/** `leader_election_master_status{name}`: 1 while this replica leads the named lease, 0 otherwise. */
export class LeaderElectionMetrics {
  private readonly masterStatus: Gauge<'name'>;

  constructor(registry: Registry) {
    this.masterStatus = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master.',
      labelNames: ['name'],
      registers: [registry],
    });
  }

  setLeading(leaseName: string, leading: boolean): void {
    this.masterStatus.set({ name: leaseName }, leading ? 1 : 0);
  }
}
