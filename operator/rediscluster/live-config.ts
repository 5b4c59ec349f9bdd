import { createHash } from 'node:crypto';
import { objectKeyToString, type ObjectKey } from '../runtime';

/**
 * Remembers, per pod of each cluster, which live parameters were applied to which Redis process (`runId`), so an
 * unchanged pod gets no CONFIG SET. Keyed by namespace/cluster/pod: two clusters with the same name in different
 * namespaces never share an entry, and a deleted cluster's entries are dropped.
 */
export class LiveConfigTracker {
  private readonly applied = new Map<string, Map<string, string>>();

  /** The stamp for a process and a parameter set. */
  static stamp(runId: string, parameters: Readonly<Record<string, string>>): string {
    return `${runId}|${createHash('sha256').update(JSON.stringify(parameters)).digest('hex')}`;
  }

  isApplied(cluster: ObjectKey, pod: string, stamp: string): boolean {
    return this.applied.get(objectKeyToString(cluster))?.get(pod) === stamp;
  }

  markApplied(cluster: ObjectKey, pod: string, stamp: string): void {
    const id = objectKeyToString(cluster);
    let pods = this.applied.get(id);
    if (pods === undefined) {
      pods = new Map();
      this.applied.set(id, pods);
    }
    pods.set(pod, stamp);
  }

  /** Drops pods that no longer exist. */
  keepOnly(cluster: ObjectKey, pods: ReadonlySet<string>): void {
    const entries = this.applied.get(objectKeyToString(cluster));
    for (const pod of entries?.keys() ?? []) if (!pods.has(pod)) entries!.delete(pod);
  }

  forgetCluster(cluster: ObjectKey): void {
    this.applied.delete(objectKeyToString(cluster));
  }
}
