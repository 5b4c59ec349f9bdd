import { DEFAULT_REDIS_PORT, endpointAddress, type RedisEndpoint } from './endpoint';
import type { ReplicationInfo } from './info-parser';

/**
 * Why a switchover was aborted, for the caller's retry policy. Every abort leaves the old primary in charge and
 * writable; none of them gets better by retrying at once.
 *
 * - `primary-not-ready`: the primary did not answer, is not a primary, or a `FAILOVER` is already running on it.
 * - `target-not-ready`: the target did not answer, does not replicate from the primary, its link is down or it is
 *   still in a full sync.
 * - `target-lagging`: the target did not reach the primary's offset while writes still flowed; writes were never
 *   paused.
 * - `target-not-caught-up`: the target did not reach the primary's last offset while writes were paused; they
 *   were resumed on the old primary.
 * - `pause-refused`: the primary refused `CLIENT PAUSE ... WRITE` (Redis before 6.2).
 * - `promotion-refused`: the target refused `REPLICAOF NO ONE`; the old primary was given its role back.
 * - `failover-refused`: the primary refused `FAILOVER` (method `failover-command`), e.g. the target is not its replica.
 */
export type SwitchoverAbortCode =
  | 'primary-not-ready'
  | 'target-not-ready'
  | 'target-lagging'
  | 'target-not-caught-up'
  | 'pause-refused'
  | 'promotion-refused'
  | 'failover-refused';

/** What {@link switchoverReadiness} concluded. */
export type SwitchoverReadiness =
  | { readonly ready: true; readonly primaryOffset: number; readonly targetOffset: number }
  | { readonly ready: false; readonly code: SwitchoverAbortCode; readonly reason: string };

/**
 * How far into the stream a server's data set is: a primary's `master_repl_offset`, a replica's *applied*
 * `slave_repl_offset` (what it keeps when promoted). A replica that never synced prints the placeholder
 * `slave_repl_offset:1` with `master_repl_offset:0`: it holds nothing, so 0.
 */
export function appliedOffset(info: ReplicationInfo): number {
  if (info.role === 'primary') {
    return info.replicationStreamOffset;
  }
  return info.replicationStreamOffset === 0 ? 0 : (info.appliedOffset ?? 0);
}

/**
 * Whether a switchover from `primary` to `target` may start, from one `INFO replication` of each (or the error
 * that replaced it). Checked before anything is paused, so a switchover that cannot succeed changes nothing.
 * The target must follow the primary under the exact address the caller gave (`master_host`/`master_port`, as
 * REPLICAOF set them) and share its replication id: then its offset is comparable with the primary's.
 */
export function switchoverReadiness(
  primary: { readonly endpoint: RedisEndpoint; readonly replication: ReplicationInfo | Error },
  target: { readonly endpoint: RedisEndpoint; readonly replication: ReplicationInfo | Error },
): SwitchoverReadiness {
  const primaryAddress = endpointAddress(primary.endpoint);
  const targetAddress = endpointAddress(target.endpoint);
  if (primaryAddress === targetAddress) {
    return { ready: false, code: 'target-not-ready', reason: `the target ${targetAddress} is the primary itself` };
  }
  if (primary.replication instanceof Error) {
    return { ready: false, code: 'primary-not-ready', reason: `primary ${primaryAddress}: ${primary.replication.message}` };
  }
  if (target.replication instanceof Error) {
    return { ready: false, code: 'target-not-ready', reason: `target ${targetAddress}: ${target.replication.message}` };
  }
  const primaryInfo = primary.replication;
  const targetInfo = target.replication;
  if (primaryInfo.role !== 'primary') {
    return { ready: false, code: 'primary-not-ready', reason: `${primaryAddress} is not a primary` };
  }
  if (primaryInfo.failoverState !== undefined && primaryInfo.failoverState !== 'no-failover') {
    return { ready: false, code: 'primary-not-ready', reason: `${primaryAddress} is in FAILOVER (${primaryInfo.failoverState})` };
  }
  const follows =
    targetInfo.role === 'replica' &&
    targetInfo.primaryHost === primary.endpoint.host &&
    targetInfo.primaryPort === (primary.endpoint.port ?? DEFAULT_REDIS_PORT);
  if (!follows) {
    const following = targetInfo.role === 'primary' ? 'is a primary' : `follows ${targetInfo.primaryHost}:${targetInfo.primaryPort}`;
    return { ready: false, code: 'target-not-ready', reason: `${targetAddress} ${following}, not ${primaryAddress}` };
  }
  if (!targetInfo.primaryLinkUp || targetInfo.syncInProgress) {
    const state = targetInfo.syncInProgress ? 'is in a full sync' : 'has its link to the primary down';
    return { ready: false, code: 'target-not-ready', reason: `${targetAddress} ${state}` };
  }
  if (targetInfo.replicationId !== primaryInfo.replicationId) {
    return {
      ready: false,
      code: 'target-not-ready',
      reason: `${targetAddress} follows replication id ${targetInfo.replicationId}, the primary has ${primaryInfo.replicationId}`,
    };
  }
  return { ready: true, primaryOffset: appliedOffset(primaryInfo), targetOffset: appliedOffset(targetInfo) };
}
