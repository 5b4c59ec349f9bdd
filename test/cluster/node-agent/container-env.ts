import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { resolveFieldPath } from './field-reference';
import { PodNotReadyToStartError, type ObjectSource } from './object-source';

/**
 * Expands `$(NAME)` references with the kubelet's rules: known names are replaced, `$$` escapes a dollar,
 * unknown references stay as written.
 */
export function expandVariableReferences(text: string, variables: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return name !== undefined && Object.hasOwn(variables, name) ? variables[name] : match;
  });
}

/**
 * The environment of a container: `envFrom` first, then `env` in order (each value may refer to earlier ones),
 * like the kubelet. A missing non-optional ConfigMap/Secret/key raises {@link PodNotReadyToStartError}
 * (`CreateContainerConfigError`), which keeps the container waiting and is retried.
 */
export async function resolveContainerEnv(pod: V1Pod, container: V1Container, objects: ObjectSource, podIp: string, hostIp: string): Promise<Record<string, string>> {
  const namespace = pod.metadata?.namespace ?? 'default';
  const result: Record<string, string> = {};
  const missing = (what: string): never => {
    throw new PodNotReadyToStartError('CreateContainerConfigError', `${what} not found (container ${container.name})`);
  };

  for (const source of container.envFrom ?? []) {
    const prefix = source.prefix ?? '';
    if (source.configMapRef) {
      const values = await objects.configMap(namespace, source.configMapRef.name ?? '');
      if (!values) { if (source.configMapRef.optional) continue; missing(`configmap "${source.configMapRef.name}"`); }
      for (const [key, value] of Object.entries(values ?? {})) result[prefix + key] = value.toString('utf8');
    }
    if (source.secretRef) {
      const values = await objects.secret(namespace, source.secretRef.name ?? '');
      if (!values) { if (source.secretRef.optional) continue; missing(`secret "${source.secretRef.name}"`); }
      for (const [key, value] of Object.entries(values ?? {})) result[prefix + key] = value.toString('utf8');
    }
  }

  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (!from) {
      result[variable.name] = expandVariableReferences(variable.value ?? '', result);
    } else if (from.fieldRef) {
      result[variable.name] = resolveFieldPath(pod, from.fieldRef.fieldPath, podIp, hostIp);
    } else if (from.configMapKeyRef) {
      const ref = from.configMapKeyRef;
      const value = (await objects.configMap(namespace, ref.name ?? ''))?.[ref.key];
      if (value === undefined) { if (ref.optional) continue; missing(`key "${ref.key}" of configmap "${ref.name}"`); }
      result[variable.name] = value!.toString('utf8');
    } else if (from.secretKeyRef) {
      const ref = from.secretKeyRef;
      const value = (await objects.secret(namespace, ref.name ?? ''))?.[ref.key];
      if (value === undefined) { if (ref.optional) continue; missing(`key "${ref.key}" of secret "${ref.name}"`); }
      result[variable.name] = value!.toString('utf8');
    } else if (from.resourceFieldRef) {
      // Resource limits are not enforced here; report the declared value (or nothing when undeclared).
      const [kind, resource] = from.resourceFieldRef.resource.split('.') as ['limits' | 'requests', string];
      result[variable.name] = String(container.resources?.[kind]?.[resource] ?? '0');
    }
  }
  return result;
}
