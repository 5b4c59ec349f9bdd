import type { V1Pod } from '@kubernetes/client-node';
import { PodNotReadyToStartError } from './object-source';

/** Resolves a downward API `fieldPath` the way the kubelet does. */
export function resolveFieldPath(pod: V1Pod, fieldPath: string, podIp: string, hostIp: string): string {
  const metadata = pod.metadata ?? {};
  const mapEntry = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(fieldPath);
  if (mapEntry) return (mapEntry[1] === 'labels' ? metadata.labels : metadata.annotations)?.[mapEntry[2]] ?? '';
  switch (fieldPath) {
    case 'metadata.name': return metadata.name ?? '';
    case 'metadata.namespace': return metadata.namespace ?? '';
    case 'metadata.uid': return metadata.uid ?? '';
    case 'metadata.labels': return formatMap(metadata.labels);
    case 'metadata.annotations': return formatMap(metadata.annotations);
    case 'spec.nodeName': return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP': case 'status.podIPs': return podIp;
    case 'status.hostIP': case 'status.hostIPs': return hostIp;
    default: throw new PodNotReadyToStartError('CreateContainerConfigError', `unsupported fieldRef ${fieldPath}`);
  }
}

function formatMap(map: Record<string, string> | undefined): string {
  return Object.entries(map ?? {}).sort(([a], [b]) => a.localeCompare(b)).map(([key, value]) => `${key}="${value}"`).join('\n');
}
