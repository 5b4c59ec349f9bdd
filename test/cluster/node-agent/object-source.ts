import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import type { KubeRestClient } from '../kube/kube-rest-client';

/** String contents of a ConfigMap or Secret (Secret values already decoded), or undefined when it does not exist. */
export type KeyValues = Record<string, Buffer>;

/** Reads the ConfigMaps and Secrets a pod refers to (for env and volumes). */
export class ObjectSource {
  constructor(private readonly client: KubeRestClient) {}

  async configMap(namespace: string, name: string): Promise<KeyValues | undefined> {
    const configMap = await this.client.getIfExists<V1ConfigMap>(`/api/v1/namespaces/${namespace}/configmaps/${name}`);
    if (!configMap) return undefined;
    const values: KeyValues = {};
    for (const [key, value] of Object.entries(configMap.data ?? {})) values[key] = Buffer.from(value, 'utf8');
    for (const [key, value] of Object.entries(configMap.binaryData ?? {})) values[key] = Buffer.from(value, 'base64');
    return values;
  }

  async secret(namespace: string, name: string): Promise<KeyValues | undefined> {
    const secret = await this.client.getIfExists<V1Secret>(`/api/v1/namespaces/${namespace}/secrets/${name}`);
    if (!secret) return undefined;
    const values: KeyValues = {};
    for (const [key, value] of Object.entries(secret.data ?? {})) values[key] = Buffer.from(value, 'base64');
    for (const [key, value] of Object.entries(secret.stringData ?? {})) values[key] = Buffer.from(value, 'utf8');
    return values;
  }

  /** A fresh ServiceAccount token through the TokenRequest API (what the kubelet mounts in projected volumes). */
  async serviceAccountToken(namespace: string, serviceAccount: string, audience: string | undefined, expirationSeconds: number): Promise<string> {
    const answer = await this.client.post<{ status: { token: string } }>(
      `/api/v1/namespaces/${namespace}/serviceaccounts/${serviceAccount}/token`,
      { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: audience ? [audience] : [], expirationSeconds } },
    );
    return answer.status.token;
  }
}

/** A pod cannot start yet (a referenced object is missing, ...): the kubelet retries, and so do we. */
export class PodNotReadyToStartError extends Error {
  override readonly name = 'PodNotReadyToStartError';
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}
