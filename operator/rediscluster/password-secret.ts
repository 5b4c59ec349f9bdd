import { randomBytes } from 'node:crypto';
import { isConflict, isNotFound, type ObjectReader, type ObjectWriter } from '../runtime';
import { selectorLabels } from '../../src/naming';
import { REDIS_CLUSTER_API_VERSION, REDIS_CLUSTER_KIND } from '../../src/api';
import type { RedisClusterObject, SecretObject } from './cluster-object';
import type { DesiredState } from './desired-state';

/** The password is missing: the user's Secret does not exist or lacks the key. Reported in status, retried slowly. */
export class PasswordUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PasswordUnavailableError';
  }
}

/**
 * Returns the cluster's password, reading its Secret by name from the apiserver (least privilege: the controller may
 * `get` and `create` Secrets, never list or watch them, so it cannot enumerate the cluster's Secrets). When the spec
 * names no Secret, creates `<name>-auth` with a random password — with POST, never apply, so an existing Secret
 * (restored from a backup, or created by hand) is never overwritten.
 */
export async function ensurePassword(
  client: Pick<ObjectReader, 'get'> & Pick<ObjectWriter, 'create'>,
  cluster: RedisClusterObject,
  desired: DesiredState,
  signal?: AbortSignal,
): Promise<string> {
  const key = desired.spec.auth.passwordSecretKey;
  let secret: SecretObject | undefined;
  try {
    secret = await client.get<SecretObject>({ apiVersion: 'v1', kind: 'Secret', namespace: cluster.metadata.namespace, name: desired.passwordSecretName }, { signal });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (!secret && desired.generatesPasswordSecret) {
    const generated: SecretObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: desired.passwordSecretName,
        namespace: cluster.metadata.namespace,
        labels: selectorLabels(cluster.metadata.name!),
        ownerReferences: [
          { apiVersion: REDIS_CLUSTER_API_VERSION, kind: REDIS_CLUSTER_KIND, name: cluster.metadata.name!, uid: cluster.metadata.uid!, controller: true, blockOwnerDeletion: true },
        ],
      },
      data: { [key]: Buffer.from(randomBytes(24).toString('base64url')).toString('base64') },
    } as SecretObject;
    try {
      secret = await client.create(generated);
    } catch (error) {
      // Someone (or our previous attempt) created it meanwhile: read it instead of replacing it.
      if (!isConflict(error)) throw error;
      secret = await client.get<SecretObject>({ apiVersion: 'v1', kind: 'Secret', namespace: cluster.metadata.namespace, name: desired.passwordSecretName });
    }
  }
  if (!secret) {
    throw new PasswordUnavailableError(`Secret ${cluster.metadata.namespace}/${desired.passwordSecretName} named by spec.auth.passwordSecretName does not exist`);
  }
  const encoded = secret.data?.[key];
  if (!encoded) {
    throw new PasswordUnavailableError(`Secret ${cluster.metadata.namespace}/${desired.passwordSecretName} has no key "${key}" (spec.auth.passwordSecretKey)`);
  }
  return Buffer.from(encoded, 'base64').toString('utf8');
}
