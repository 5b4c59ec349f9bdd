import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { V1Container, V1KeyToPath, V1Pod, V1Volume } from '@kubernetes/client-node';
import { resolveFieldPath } from './field-reference';
import { PodNotReadyToStartError, type KeyValues, type ObjectSource } from './object-source';
import type { HostMount } from './path-mapping';

/** Gives a PersistentVolumeClaim its host folder (see PersistentVolumeProvisioner). */
export interface ClaimFolders {
  folderFor(namespace: string, claimName: string): Promise<string>;
}

/** What materializing volumes needs. */
export interface VolumeContext {
  readonly pod: V1Pod;
  /** The pod's private folder; volumes go to `<podDir>/volumes/<name>`. */
  readonly podDir: string;
  /** `hostPath` volumes are sandboxed under this folder, never the real host path. */
  readonly hostPathSandbox: string;
  readonly objects: ObjectSource;
  readonly claims: ClaimFolders;
  readonly podIp: string;
  readonly hostIp: string;
}

const DEFAULT_FILE_MODE = 0o644;
const DEFAULT_TOKEN_SECONDS = 3607;

/**
 * Materializes every volume of a pod into host folders: emptyDir, configMap, secret, downwardAPI, projected
 * (including ServiceAccount tokens), persistentVolumeClaim (a persistent folder) and hostPath (sandboxed).
 * Returns the host folder of each volume by name. Throws {@link PodNotReadyToStartError} when something a volume
 * refers to is missing (retried later, like the kubelet's mount retries), or for unsupported volume types.
 */
export async function materializeVolumes(context: VolumeContext): Promise<Map<string, string>> {
  const folders = new Map<string, string>();
  for (const volume of context.pod.spec?.volumes ?? []) {
    folders.set(volume.name, await materializeVolume(volume, context));
  }
  return folders;
}

async function materializeVolume(volume: V1Volume, context: VolumeContext): Promise<string> {
  const namespace = context.pod.metadata?.namespace ?? 'default';
  const folder = join(context.podDir, 'volumes', volume.name);
  const notReady = (message: string): never => {
    throw new PodNotReadyToStartError('ContainerCreating', `MountVolume.SetUp failed for volume "${volume.name}": ${message}`);
  };
  if (volume.persistentVolumeClaim) return context.claims.folderFor(namespace, volume.persistentVolumeClaim.claimName);
  if (volume.hostPath) {
    const sandboxed = join(context.hostPathSandbox, volume.hostPath.path);
    mkdirSync(sandboxed, { recursive: true });
    return sandboxed;
  }
  mkdirSync(folder, { recursive: true });
  if (volume.emptyDir) return folder;
  if (volume.configMap) {
    const values = await context.objects.configMap(namespace, volume.configMap.name ?? '');
    if (!values && !volume.configMap.optional) notReady(`configmap "${volume.configMap.name}" not found`);
    writeKeys(folder, values ?? {}, volume.configMap.items, volume.configMap.defaultMode);
    return folder;
  }
  if (volume.secret) {
    const values = await context.objects.secret(namespace, volume.secret.secretName ?? '');
    if (!values && !volume.secret.optional) notReady(`secret "${volume.secret.secretName}" not found`);
    writeKeys(folder, values ?? {}, volume.secret.items, volume.secret.defaultMode);
    return folder;
  }
  if (volume.downwardAPI) {
    for (const item of volume.downwardAPI.items ?? []) {
      if (item.fieldRef) writeFile(join(folder, item.path), Buffer.from(resolveFieldPath(context.pod, item.fieldRef.fieldPath, context.podIp, context.hostIp)), item.mode ?? volume.downwardAPI.defaultMode);
    }
    return folder;
  }
  if (volume.projected) {
    for (const source of volume.projected.sources ?? []) {
      if (source.configMap) {
        const values = await context.objects.configMap(namespace, source.configMap.name ?? '');
        if (!values && !source.configMap.optional) notReady(`configmap "${source.configMap.name}" not found`);
        writeKeys(folder, values ?? {}, source.configMap.items, volume.projected.defaultMode);
      } else if (source.secret) {
        const values = await context.objects.secret(namespace, source.secret.name ?? '');
        if (!values && !source.secret.optional) notReady(`secret "${source.secret.name}" not found`);
        writeKeys(folder, values ?? {}, source.secret.items, volume.projected.defaultMode);
      } else if (source.downwardAPI) {
        for (const item of source.downwardAPI.items ?? []) {
          if (item.fieldRef) writeFile(join(folder, item.path), Buffer.from(resolveFieldPath(context.pod, item.fieldRef.fieldPath, context.podIp, context.hostIp)), item.mode ?? volume.projected.defaultMode);
        }
      } else if (source.serviceAccountToken) {
        const token = await context.objects.serviceAccountToken(
          namespace,
          context.pod.spec?.serviceAccountName ?? 'default',
          source.serviceAccountToken.audience,
          source.serviceAccountToken.expirationSeconds ?? DEFAULT_TOKEN_SECONDS,
        ).catch((error: unknown) => notReady(`token request failed: ${(error as Error).message}`));
        writeFile(join(folder, source.serviceAccountToken.path), Buffer.from(token), volume.projected.defaultMode);
      }
    }
    return folder;
  }
  return notReady('volume type not supported by the local node agent (supported: emptyDir, configMap, secret, downwardAPI, projected, persistentVolumeClaim, hostPath)');
}

function writeKeys(folder: string, values: KeyValues, items: V1KeyToPath[] | undefined, defaultMode: number | undefined): void {
  if (items?.length) {
    for (const item of items) {
      const value = values[item.key];
      if (value !== undefined) writeFile(join(folder, item.path), value, item.mode ?? defaultMode);
    }
    return;
  }
  for (const [key, value] of Object.entries(values)) writeFile(join(folder, key), value, defaultMode);
}

function writeFile(path: string, content: Buffer, mode: number | undefined): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  chmodSync(path, mode ?? DEFAULT_FILE_MODE);
}

/** The host view of a container's volume mounts (subPath included). Unknown volumes are a spec error. */
export function containerMounts(container: V1Container, volumeFolders: ReadonlyMap<string, string>): HostMount[] {
  return (container.volumeMounts ?? []).map((mount) => {
    const folder = volumeFolders.get(mount.name);
    if (!folder) throw new PodNotReadyToStartError('CreateContainerConfigError', `volume "${mount.name}" of container ${container.name} is not defined`);
    const hostPath = mount.subPath ? join(folder, mount.subPath) : folder;
    // Like the kubelet: a subPath that does not exist yet becomes a folder.
    if (mount.subPath && !existsSync(hostPath)) mkdirSync(hostPath, { recursive: true });
    return { mountPath: mount.mountPath, hostPath, readOnly: mount.readOnly ?? false };
  });
}
