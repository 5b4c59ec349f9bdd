import { HELM_VARIANTS, helmCondition } from '../../src/helm/helm-variants';
import { helmImageValues } from '../../src/helm/operator-helm-chart';

describe('helmCondition', () => {
  it('needs no condition for an object every variant has', () => {
    expect(helmCondition(HELM_VARIANTS)).toBeUndefined();
  });

  it('tests one value when the object exists for every variant with that value', () => {
    expect(helmCondition(HELM_VARIANTS.filter((variant) => variant.rbacScope === 'namespace'))).toBe('eq .Values.rbac.scope "namespace"');
    expect(helmCondition(HELM_VARIANTS.filter((variant) => variant.leaderElection))).toBe('.Values.leaderElection.enabled');
  });

  it('joins both dimensions for a single variant', () => {
    expect(helmCondition([{ rbacScope: 'cluster', leaderElection: false }])).toBe('and (eq .Values.rbac.scope "cluster") (not .Values.leaderElection.enabled)');
  });
});

describe('helmImageValues', () => {
  it('splits the tag off the last path segment only', () => {
    expect(helmImageValues('registry.example:5000/team/redkite:1.2.3')).toEqual({ repository: 'registry.example:5000/team/redkite', tag: '1.2.3' });
    expect(helmImageValues('registry.example:5000/team/redkite')).toEqual({ repository: 'registry.example:5000/team/redkite', tag: '' });
  });

  it('refuses a digest, which the chart has no value for', () => {
    expect(() => helmImageValues(`redkite@sha256:${'a'.repeat(64)}`)).toThrow('take a tag, not a digest');
  });
});
