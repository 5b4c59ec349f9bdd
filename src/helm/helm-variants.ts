/**
 * The structural choices of the Helm chart: each combination is synthesized from the constructs, and every object
 * is wrapped in the condition under which it exists in that form.
 */
export interface HelmVariant {
  readonly rbacScope: 'cluster' | 'namespace';
  readonly leaderElection: boolean;
}

export const HELM_VARIANTS: readonly HelmVariant[] = [
  { rbacScope: 'cluster', leaderElection: true },
  { rbacScope: 'cluster', leaderElection: false },
  { rbacScope: 'namespace', leaderElection: true },
  { rbacScope: 'namespace', leaderElection: false },
];

type Dimension = keyof HelmVariant;
const DIMENSIONS: readonly Dimension[] = ['rbacScope', 'leaderElection'];

function dimensionCondition(dimension: Dimension, variant: HelmVariant): string {
  if (dimension === 'rbacScope') return `(eq .Values.rbac.scope "${variant.rbacScope}")`;
  return variant.leaderElection ? '.Values.leaderElection.enabled' : '(not .Values.leaderElection.enabled)';
}

function variantCondition(variant: HelmVariant): string {
  return `(and ${DIMENSIONS.map((dimension) => dimensionCondition(dimension, variant)).join(' ')})`;
}

const same = (a: HelmVariant, b: HelmVariant) => a.rbacScope === b.rbacScope && a.leaderElection === b.leaderElection;

/**
 * The Helm condition that holds exactly for `variants`: `undefined` for all of them, one dimension's test when the
 * set is "every variant with this value", else a disjunction of the variants.
 */
export function helmCondition(variants: readonly HelmVariant[]): string | undefined {
  if (HELM_VARIANTS.every((variant) => variants.some((candidate) => same(candidate, variant)))) return undefined;
  for (const dimension of DIMENSIONS) {
    const value = variants[0][dimension];
    const slice = HELM_VARIANTS.filter((variant) => variant[dimension] === value);
    if (slice.length === variants.length && slice.every((variant) => variants.some((candidate) => same(candidate, variant)))) {
      return dimensionCondition(dimension, variants[0]).replace(/^\((.*)\)$/, '$1');
    }
  }
  if (variants.length === 1) return variantCondition(variants[0]).replace(/^\((.*)\)$/, '$1');
  return `or ${variants.map(variantCondition).join(' ')}`;
}
