import { parseInfo } from '../../../operator/redis';
import type { PipelineReply } from '../../../operator/redis/pipeline-replies';
import type { MemberSample } from './writable-windows';

/** A sample's verdict, without its times. */
export type MemberVerdict = Pick<MemberSample, 'state' | 'detail' | 'replicationId'>;

/**
 * Whether a member would accept a write, from its replies to `ROLE`, `INFO replication` and
 * `CONFIG GET min-replicas-to-write` (pure, so each rule is unit-tested on captured replies):
 * - a refused password (-NOAUTH, -WRONGPASS) says nothing about writability: `unanswered`, so a sampler holding the
 *   wrong password shows up in the figures instead of hiding a primary as "not writable";
 * - another error reply (-LOADING, -BUSY, ...) and role slave: `not-writable`;
 * - role master while `master_failover_state` is not `no-failover`: `not-writable` (FAILOVER pauses its writes);
 * - role master enforcing min-replicas-to-write (INFO shows `min_slaves_good_slaves` only when
 *   min-replicas-to-write and min-replicas-max-lag are both set) with fewer good replicas: `not-writable`, the
 *   -NOREPLICAS Redis would answer;
 * - any other master: `writable`. When CONFIG GET fails the requirement is taken as 0, which can only count more
 *   members writable, never fewer.
 */
export function memberStateFromReplies(role: PipelineReply, replication: PipelineReply, minReplicasToWrite: PipelineReply): MemberVerdict {
  if (role.error !== undefined) {
    const refusedPassword = /^(NOAUTH|WRONGPASS)/.test(role.error.message);
    return { state: refusedPassword ? 'unanswered' : 'not-writable', detail: role.error.message };
  }
  const roleReply = role.value as unknown[];
  if (roleReply[0] !== 'master') {
    return { state: 'not-writable', detail: `${String(roleReply[0])} of ${String(roleReply[1])}:${String(roleReply[2])}` };
  }
  if (replication.error !== undefined) {
    return { state: 'writable', detail: `master (INFO failed: ${replication.error.message})` };
  }
  const fields = parseInfo(String(replication.value)).get('replication') ?? new Map<string, string>();
  const replicationId = fields.get('master_replid');
  const failoverState = fields.get('master_failover_state');
  if (failoverState !== undefined && failoverState !== 'no-failover') {
    return { state: 'not-writable', detail: `master in FAILOVER (${failoverState}), writes paused`, replicationId };
  }
  const goodReplicas = fields.get('min_slaves_good_slaves');
  const required = minReplicasToWrite.error === undefined ? Number((minReplicasToWrite.value as string[])[1] ?? 0) : 0;
  if (goodReplicas !== undefined && required > 0) {
    const writable = Number(goodReplicas) >= required;
    return {
      state: writable ? 'writable' : 'not-writable',
      detail: `master with ${goodReplicas} of ${required} good replicas${writable ? '' : ' (NOREPLICAS)'}`,
      replicationId,
    };
  }
  return { state: 'writable', detail: `master without min-replicas-to-write, ${fields.get('connected_slaves') ?? '?'} replicas`, replicationId };
}
