import { Testing, Yaml } from 'cdk8s';
import { OperatorBundle } from '../../src/operator-bundle/operator-bundle';
import { expectMatchesGolden } from '../support/golden';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = any;

function synth(props = {}): Manifest[] {
  const chart = Testing.chart();
  new OperatorBundle(chart, 'operator', props);
  return Testing.synth(chart);
}
const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((manifest) => manifest.kind === kind);

describe('OperatorBundle', () => {
  it('matches its golden YAML', () => {
    expectMatchesGolden('operator-bundle.k8s.yaml', Yaml.stringify(...synth()));
  });

  it('grants no wildcard in any rule', () => {
    for (const role of [...ofKind(synth(), 'ClusterRole'), ...ofKind(synth(), 'Role'), ...ofKind(synth({ watchNamespace: 'apps' }), 'Role')]) {
      for (const rule of role.rules) {
        for (const field of ['apiGroups', 'resources', 'verbs']) expect(rule[field]).not.toContain('*');
        expect(rule.resourceNames).toBeUndefined();
      }
    }
  });

  it('grants exactly the verbs the controller uses on RedisClusters and pods', () => {
    const [clusterRole] = ofKind(synth(), 'ClusterRole');
    const verbs = (resource: string) => clusterRole.rules.find((rule: Manifest) => rule.resources.includes(resource))?.verbs;
    expect(verbs('redisclusters')).toEqual(['get', 'list', 'watch', 'patch']);
    expect(verbs('redisclusters/status')).toEqual(['patch']);
    // Secrets by name only: no list or watch, so the controller cannot enumerate the cluster's Secrets.
    expect(verbs('secrets')).toEqual(['get', 'create']);
    expect(verbs('statefulsets')).toEqual(['get', 'list', 'watch', 'create', 'patch']);
    expect(verbs('pods')).toEqual(['get', 'list', 'watch', 'patch', 'delete']);
    expect(verbs('leases')).toBeUndefined();
  });

  it('keeps leader election in the operator namespace', () => {
    const leaderRole = ofKind(synth(), 'Role').find((role) => role.metadata.name.endsWith('leader-election'));
    expect(leaderRole.metadata.namespace).toBe('redkite-system');
    expect(leaderRole.rules[0]).toEqual({ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] });
  });

  it('uses a Role instead of a ClusterRole when scoped to one namespace', () => {
    const manifests = synth({ watchNamespace: 'apps' });
    expect(ofKind(manifests, 'ClusterRole')).toHaveLength(0);
    expect(ofKind(manifests, 'Role').map((role) => role.metadata.namespace).sort()).toEqual(['apps', 'redkite-system']);
    expect(ofKind(manifests, 'Deployment')[0].spec.template.spec.containers[0].args).toContain('--namespace=apps');
  });

  it('runs two leader-elected replicas with health probes and a mounted token', () => {
    const [deployment] = ofKind(synth(), 'Deployment');
    const pod = deployment.spec.template.spec;
    expect(deployment.spec.replicas).toBe(2);
    expect(pod.automountServiceAccountToken).toBe(true);
    expect(pod.serviceAccountName).toBe('redkite-operator');
    expect(pod.containers[0].args).toEqual(expect.arrayContaining(['run', '--leader-elect']));
    expect(pod.containers[0].livenessProbe.httpGet.path).toBe('/healthz');
    expect(pod.containers[0].readinessProbe.httpGet.path).toBe('/readyz');
    expect(pod.containers[0].resources.requests).toEqual({ cpu: '100m', memory: '128Mi' });
  });

  it('runs under the restricted Pod Security Standard', () => {
    const pod = ofKind(synth(), 'Deployment')[0].spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.containers[0].securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it('takes the image as a prop', () => {
    expect(ofKind(synth({ image: 'example.com/redkite:dev' }), 'Deployment')[0].spec.template.spec.containers[0].image).toBe('example.com/redkite:dev');
  });

  it('takes resources as a prop', () => {
    const resources = { requests: { cpu: '250m', memory: '256Mi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(ofKind(synth({ resources }), 'Deployment')[0].spec.template.spec.containers[0].resources).toEqual(resources);
  });

  it('without leader election grants no Lease permission and runs without --leader-elect', () => {
    const manifests = synth({ leaderElection: false, replicas: 1 });
    expect(ofKind(manifests, 'Role').filter((role) => role.metadata.name.endsWith('leader-election'))).toHaveLength(0);
    expect(ofKind(manifests, 'RoleBinding')).toHaveLength(0);
    expect(ofKind(manifests, 'Deployment')[0].spec.template.spec.containers[0].args).not.toContain('--leader-elect');
  });

  it('refuses more than one replica without leader election', () => {
    expect(() => synth({ leaderElection: false })).toThrow('OperatorBundle: 2 replicas need leader election (leaderElection: true)');
  });

  it('refuses a replica count that is not a non-negative integer', () => {
    expect(() => synth({ replicas: 1.5 })).toThrow('OperatorBundle: replicas must be a non-negative integer, got 1.5');
  });

  it('refuses an image that is not a container image reference', () => {
    expect(() => synth({ image: 'Not An Image' })).toThrow('OperatorBundle image: "Not An Image" is not a container image reference');
  });

  it('exposes metrics through a Service and keeps one pod up through disruptions', () => {
    const manifests = synth();
    expect(ofKind(manifests, 'Service')[0].spec.ports[0]).toMatchObject({ name: 'metrics', port: 8080 });
    expect(ofKind(manifests, 'PodDisruptionBudget')[0].spec.minAvailable).toBe(1);
  });
});
