import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { V1PersistentVolume, V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { KubeApiError, type KubeRestClient } from '../kube/kube-rest-client';
import { PodNotReadyToStartError } from './object-source';
import type { ClaimFolders } from './pod-volumes';

/** Label on the PersistentVolumes the agent provisions. */
export const PROVISIONED_BY_LABEL = 'redkite.dev/provisioned-by';
const PROVISIONER = 'redkite-node-agent';

/**
 * Gives each PersistentVolumeClaim a persistent host folder: on first use it creates a hostPath
 * PersistentVolume (`pvc-<claim uid>`, claimRef set, same storage class and access modes), pre-binds the claim to
 * it (`spec.volumeName`) and marks both Bound. The folder outlives pods, so a StatefulSet pod that is deleted and
 * re-created finds its data; it is removed when the claim is deleted (reclaim policy Delete).
 */
export class PersistentVolumeProvisioner implements ClaimFolders {
  // One binding at a time per claim: two pods may share a claim and start together.
  private readonly inFlight = new Map<string, Promise<string>>();

  constructor(private readonly client: KubeRestClient, private readonly root: string) {}

  folderFor(namespace: string, claimName: string): Promise<string> {
    const key = `${namespace}/${claimName}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    const binding = this.bind(namespace, claimName).finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, binding);
    return binding;
  }

  private async bind(namespace: string, claimName: string): Promise<string> {
    const claimPath = `/api/v1/namespaces/${namespace}/persistentvolumeclaims/${claimName}`;
    const claim = await this.client.getIfExists<V1PersistentVolumeClaim>(claimPath);
    if (!claim) throw new PodNotReadyToStartError('ContainerCreating', `persistentvolumeclaim "${claimName}" not found`);
    if (claim.metadata?.deletionTimestamp) throw new PodNotReadyToStartError('ContainerCreating', `persistentvolumeclaim "${claimName}" is being deleted`);
    const uid = claim.metadata!.uid!;
    const volumeName = claim.spec?.volumeName || `pvc-${uid}`;
    let volume = await this.client.getIfExists<V1PersistentVolume>(`/api/v1/persistentvolumes/${volumeName}`);
    if (!volume) {
      if (claim.spec?.volumeName) {
        throw new PodNotReadyToStartError('ContainerCreating', `persistentvolumeclaim "${claimName}" asks for volume ${volumeName}, which does not exist`);
      }
      const folder = join(this.root, namespace, `${claimName}-${uid}`);
      mkdirSync(folder, { recursive: true });
      volume = await this.createVolume(volumeName, claim, folder);
    }
    const folder = volume.spec?.hostPath?.path;
    if (!folder) throw new PodNotReadyToStartError('ContainerCreating', `volume ${volumeName} is not a hostPath volume`);
    mkdirSync(folder, { recursive: true });
    if (!claim.spec?.volumeName) await this.client.patch(claimPath, { spec: { volumeName } });
    if (claim.status?.phase !== 'Bound') {
      await this.client.patch(`${claimPath}/status`, {
        status: { phase: 'Bound', accessModes: claim.spec?.accessModes, capacity: volume.spec?.capacity },
      });
    }
    if (volume.status?.phase !== 'Bound') await this.client.patch(`/api/v1/persistentvolumes/${volumeName}/status`, { status: { phase: 'Bound' } });
    return folder;
  }

  private async createVolume(name: string, claim: V1PersistentVolumeClaim, folder: string): Promise<V1PersistentVolume> {
    const body = {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: {
        name,
        labels: { [PROVISIONED_BY_LABEL]: PROVISIONER },
        annotations: { 'pv.kubernetes.io/provisioned-by': PROVISIONER, 'pv.kubernetes.io/bound-by-controller': 'yes' },
      },
      spec: {
        capacity: { storage: claim.spec?.resources?.requests?.storage ?? '1Gi' },
        accessModes: claim.spec?.accessModes?.length ? claim.spec.accessModes : ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Delete',
        storageClassName: claim.spec?.storageClassName ?? '',
        volumeMode: claim.spec?.volumeMode ?? 'Filesystem',
        hostPath: { path: folder, type: 'DirectoryOrCreate' },
        claimRef: {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          namespace: claim.metadata!.namespace,
          name: claim.metadata!.name,
          uid: claim.metadata!.uid,
        },
      },
    };
    try {
      return await this.client.post<V1PersistentVolume>('/api/v1/persistentvolumes', body);
    } catch (error) {
      if (error instanceof KubeApiError && error.statusCode === 409) return this.client.get<V1PersistentVolume>(`/api/v1/persistentvolumes/${name}`);
      throw error;
    }
  }

  /** A claim is gone: delete the volume the agent made for it and its folder (reclaim policy Delete). */
  async claimDeleted(claim: V1PersistentVolumeClaim): Promise<void> {
    const name = claim.spec?.volumeName || `pvc-${claim.metadata?.uid}`;
    const volume = await this.client.getIfExists<V1PersistentVolume>(`/api/v1/persistentvolumes/${name}`);
    if (!volume || volume.metadata?.labels?.[PROVISIONED_BY_LABEL] !== PROVISIONER) return;
    if (volume.spec?.claimRef?.uid !== claim.metadata?.uid) return;
    await this.client.delete(`/api/v1/persistentvolumes/${name}`).catch((error: unknown) => {
      if (!(error instanceof KubeApiError && error.statusCode === 404)) throw error;
    });
    const folder = volume.spec?.hostPath?.path;
    if (folder?.startsWith(this.root)) rmSync(folder, { recursive: true, force: true });
  }
}
