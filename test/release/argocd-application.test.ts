import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { PACKAGE_VERSION } from '../../src/operator-bundle/package-version';
import { REDIS_CLUSTER_HEALTH_CONFIG_KEY, REDIS_CLUSTER_HEALTH_LUA } from '../../src/release/argocd-health-check';
import { releaseKustomization } from '../../src/release/kustomization';

const root = path.join(__dirname, '..', '..');
const distFile = (file: string) => parse(fs.readFileSync(path.join(root, 'dist', file), 'utf8'));

describe('the Argo CD example in dist/argocd', () => {
  it('installs this version of the release from dist/ of the repository package.json names', () => {
    const { repository } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { repository: { url: string } };
    const application = distFile('argocd/redkite-application.yaml');
    expect(application).toMatchObject({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', metadata: { namespace: 'argocd' } });
    expect(application.spec.source).toEqual({ repoURL: repository.url.replace(/^git\+/, ''), targetRevision: `v${PACKAGE_VERSION}`, path: 'dist' });
    expect(application.spec.destination.namespace).toBe('redkite-system');
    expect(fs.existsSync(path.join(root, application.spec.source.path, 'kustomization.yaml'))).toBe(true);
  });

  it('ships the health check as an argocd-cm patch under the key Argo CD looks up for RedisClusters', () => {
    const configMap = distFile('argocd/argocd-cm-redkite-health.yaml');
    expect(configMap.metadata).toMatchObject({ name: 'argocd-cm', namespace: 'argocd' });
    expect(Object.keys(configMap.data)).toEqual(['resource.customizations.health.redis.redkite.io_RedisCluster']);
    expect(configMap.data[REDIS_CLUSTER_HEALTH_CONFIG_KEY]).toBe(REDIS_CLUSTER_HEALTH_LUA);
  });
});

describe('releaseKustomization', () => {
  it('lists the files in the order given and nothing else', () => {
    expect(parse(releaseKustomization(['a.yaml', 'b.yaml']))).toEqual({ apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', resources: ['a.yaml', 'b.yaml'] });
  });

  it('refuses an empty release', () => {
    expect(() => releaseKustomization([])).toThrow('releaseKustomization: no resource files');
  });
});
