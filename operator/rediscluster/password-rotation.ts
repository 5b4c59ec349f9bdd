import { REDIS_PORT } from '../../src/naming';
import { answeredWithError, type RedisAdministration } from '../redis';
import type { PodObject } from './cluster-object';

/** What the controller remembers of a cluster's passwords (in memory: a new controller only restarts the grace). */
export interface PasswordMemory {
  /** The password the pods accepted on the last pass. */
  lastAccepted?: string;
  /** A rotation whose old password is still valid on some pods, and since when (monotonic) every pod has the new. */
  retiring?: { readonly password: string; newEverywhereSince?: number };
}

/** How long the old password stays valid once every pod has the new one, so clients can move. */
export const OLD_PASSWORD_GRACE_MILLISECONDS = 60_000;

/**
 * Rolls a password change out in two phases (docs/failover.md, "Password rotation"): pods that still refuse the new
 * password but accept the old one get the new one *added* (`ACL SETUSER default >new`, and `masterauth new`), so
 * both are valid while pods restart one at a time with the new one from the Secret; once every pod accepts the new
 * password and the grace period has passed, the old one is removed. A pod never stops accepting the password its
 * primary or its clients present mid-rollout, and no refused password is ever read as "down" (I4).
 *
 * Only called while a rotation is under way ({@link rotationUnderWay}), so a steady cluster gets no extra probe.
 *
 * @returns a progress message while a rotation is under way, else undefined.
 */
export async function rotatePassword(
  admin: Pick<RedisAdministration, 'probe' | 'addPassword' | 'removePassword'>,
  pods: readonly PodObject[],
  password: string,
  memory: PasswordMemory,
  monotonicNow: number,
  guard: () => void,
): Promise<string | undefined> {
  const addresses = pods.flatMap((pod) => (pod.status?.phase === 'Running' && pod.status.podIP ? [pod.status.podIP] : []));
  const previous = memory.lastAccepted;
  if (previous !== undefined && previous !== password && memory.retiring?.password !== previous) {
    memory.retiring = { password: previous };
  }
  const retiring = memory.retiring;
  let everyPodHasNew = true;
  for (const host of addresses) {
    const observation = await admin.probe({ host, port: REDIS_PORT, password });
    if (observation.reachable) continue;
    if (!answeredWithError(observation) || retiring === undefined) {
      everyPodHasNew = false;
      continue;
    }
    const withOld = await admin.probe({ host, port: REDIS_PORT, password: retiring.password });
    if (!withOld.reachable) {
      everyPodHasNew = false;
      continue;
    }
    guard();
    await admin.addPassword({ host, port: REDIS_PORT, password: retiring.password }, password);
  }
  if (retiring === undefined) return undefined;
  if (!everyPodHasNew) return `rotating the password: some pods do not accept the new one yet`;
  retiring.newEverywhereSince ??= monotonicNow;
  if (monotonicNow - retiring.newEverywhereSince < OLD_PASSWORD_GRACE_MILLISECONDS) {
    return `rotating the password: every pod accepts the new one; the old one stays valid for ${OLD_PASSWORD_GRACE_MILLISECONDS / 1000} s`;
  }
  for (const host of addresses) {
    guard();
    await admin.removePassword({ host, port: REDIS_PORT, password }, retiring.password);
  }
  memory.retiring = undefined;
  return undefined;
}

/** Whether the Secret's password differs from the one the pods accepted, or an old one is still to be removed. */
export function rotationUnderWay(memory: PasswordMemory, password: string): boolean {
  return (memory.lastAccepted !== undefined && memory.lastAccepted !== password) || memory.retiring !== undefined;
}
