import { k8s } from 'cdk8s-plus-28';

/** The Redis image runs as uid/gid 999 (the official image's `redis` user). */
export const REDIS_USER_ID = 999;

/** A container security context that satisfies the `restricted` Pod Security Standard. */
export function restrictedContainerSecurityContext(): k8s.SecurityContext {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** A pod security context that satisfies the `restricted` Pod Security Standard for the given user. */
export function restrictedPodSecurityContext(userId: number): k8s.PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: userId,
    runAsGroup: userId,
    fsGroup: userId,
    fsGroupChangePolicy: 'OnRootMismatch',
    seccompProfile: { type: 'RuntimeDefault' },
  };
}
