import { readFileSync, writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import type { ClusterPki } from './pki';

/**
 * Writes a self-contained kubeconfig (certificates embedded, so it keeps working when copied elsewhere) for
 * the admin identity, with one context named `redkite-local`.
 */
export function writeAdminKubeconfig(path: string, apiServerUrl: string, pki: ClusterPki): void {
  const base64 = (file: string): string => readFileSync(file).toString('base64');
  const kubeconfig = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'redkite-local', cluster: { server: apiServerUrl, 'certificate-authority-data': base64(pki.caCertificate) } }],
    users: [{ name: 'redkite-admin', user: { 'client-certificate-data': base64(pki.adminCertificate), 'client-key-data': base64(pki.adminKey) } }],
    contexts: [{ name: 'redkite-local', context: { cluster: 'redkite-local', user: 'redkite-admin', namespace: 'default' } }],
    'current-context': 'redkite-local',
  };
  writeFileSync(path, stringify(kubeconfig), { mode: 0o600 });
}
