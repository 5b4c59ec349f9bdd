import type { KubeConfig } from '@kubernetes/client-node';
import { k8s, loadKubeConfig, useTestNamespace } from './support';
import { operatorKubeconfig } from './controller-support/operator-process';
import { installCrd, installOperatorRelease } from './controller-support/release';

const config = loadKubeConfig();
const namespace = useTestNamespace('secret-access');

/** Asks the apiserver whether the release's ServiceAccount may do `verb` on Secrets in the test namespace. */
async function operatorMay(operator: KubeConfig, verb: string): Promise<boolean> {
  const review = await operator.makeApiClient(k8s.AuthorizationV1Api).createSelfSubjectAccessReview({
    body: { spec: { resourceAttributes: { namespace: namespace.name, verb, resource: 'secrets' } } },
  });
  return review.status?.allowed === true;
}

describe('least privilege for Secrets (the release RBAC, as the operator ServiceAccount)', () => {
  let operator: KubeConfig;

  beforeAll(async () => {
    await installCrd(config);
    await installOperatorRelease(config);
    operator = new k8s.KubeConfig();
    operator.loadFromFile(await operatorKubeconfig(config));
  });

  it('may read and create a Secret by name, and may neither list nor watch Secrets', async () => {
    expect({ get: await operatorMay(operator, 'get'), create: await operatorMay(operator, 'create') }).toEqual({ get: true, create: true });
    expect({ list: await operatorMay(operator, 'list'), watch: await operatorMay(operator, 'watch') }).toEqual({ list: false, watch: false });
  });

  it('is refused when it lists Secrets', async () => {
    await expect(operator.makeApiClient(k8s.CoreV1Api).listNamespacedSecret({ namespace: namespace.name })).rejects.toMatchObject({ code: 403 });
  });
});
