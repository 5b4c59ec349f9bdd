import type { KubernetesObject } from '@kubernetes/client-node';
import { k8s } from './support/client-node';
import { E2E_TEST_TIMEOUT_MILLISECONDS, loadKubeConfig } from './support/cluster-environment';
import { useTestNamespace } from './support/test-namespace';
import { installCrd } from './controller-support/release';
import { AdmissionCase, admissionCases } from '../support/admission-cases';
import { fieldErrorText } from '../../src/api/validation/field-error';
import { REDIS_CLUSTER_SCALE_SUBRESOURCE, redisClusterOpenApiSchema, validateRedisClusterObject } from '../../src/api';

/**
 * The synth-time validation (src/api/validate-redis-cluster.ts) against the real kube-apiserver: every admission
 * fixture, created (or created and updated) in both, must get the same verdict, and every error the apiserver
 * reports must appear word for word among the offline errors.
 */

jest.setTimeout(E2E_TEST_TIMEOUT_MILLISECONDS);

const config = loadKubeConfig();
const namespace = useTestNamespace('synth-agreement');
const customObjects = config.makeApiClient(k8s.CustomObjectsApi);
const resource = { group: 'redis.redkite.io', version: 'v1alpha1', plural: 'redisclusters' };
const cases = admissionCases();

interface ApiserverStatus {
  readonly message: string;
  readonly details?: { readonly causes?: readonly { readonly field?: string; readonly message: string }[] };
}

/** The apiserver's verdict, and for a rejection each error as it prints it (`spec.replicas: Invalid value: ...`). */
type Answer = { readonly accepted: true; readonly stored: KubernetesObject } | { readonly accepted: false; readonly errors: string[]; readonly message: string };

function rejection(error: unknown): Answer {
  const body = (error as { body?: unknown }).body;
  let status: ApiserverStatus;
  try {
    status = (typeof body === 'string' ? JSON.parse(body) : body) as ApiserverStatus;
  } catch {
    throw new Error(`the apiserver failed without a Status: ${String(body ?? error)}`, { cause: error });
  }
  if (!status?.message) throw error;
  const causes = status.details?.causes ?? [];
  // A strict-decoding failure carries no causes: its message ends with the decoder's own text.
  const errors = causes.length > 0
    ? causes.map((cause) => (cause.field ? `${cause.field}: ${cause.message}` : cause.message))
    : [status.message.slice(status.message.indexOf('strict decoding error: '))];
  return { accepted: false, errors, message: status.message };
}

/** Creates with strict field validation, kubectl's and Argo CD's default. */
async function create(object: Record<string, unknown>): Promise<Answer> {
  try {
    const stored = (await customObjects.createNamespacedCustomObject({ ...resource, namespace: namespace.name, body: object, fieldValidation: 'Strict' })) as KubernetesObject;
    return { accepted: true, stored };
  } catch (error) {
    return rejection(error);
  }
}

async function replace(stored: KubernetesObject, object: Record<string, unknown>): Promise<Answer> {
  const metadata = { ...(object.metadata as object), resourceVersion: stored.metadata!.resourceVersion };
  try {
    const updated = (await customObjects.replaceNamespacedCustomObject({
      ...resource,
      namespace: namespace.name,
      name: stored.metadata!.name!,
      body: { ...object, metadata },
      fieldValidation: 'Strict',
    })) as KubernetesObject;
    return { accepted: true, stored: updated };
  } catch (error) {
    return rejection(error);
  }
}

interface Outcome {
  readonly id: string;
  readonly verdictsAgree: boolean;
  readonly errorsAgree: boolean;
  /** The offline errors are exactly the apiserver's, no more. */
  readonly identical: boolean;
}
const outcomes: Outcome[] = [];

describe('synth-time validation agrees with the real kube-apiserver', () => {
  beforeAll(async () => {
    await installCrd(config);
  });

  afterAll(() => {
    const rejected = outcomes.filter((outcome) => cases.find((candidate) => candidate.id === outcome.id)?.verdict === 'reject');
    process.stderr.write(
      `\n[synth-validation] fixtures checked: ${outcomes.length} of ${cases.length}; verdicts agree: ${outcomes.filter((o) => o.verdictsAgree).length}; ` +
        `rejections whose apiserver errors all appear offline: ${rejected.filter((o) => o.errorsAgree).length} of ${rejected.length}; ` +
        `identical error lists: ${outcomes.filter((o) => o.identical).length} of ${outcomes.length}\n`,
    );
  });

  it('validates offline with the very schema the apiserver was given', async () => {
    // Read raw: the typed client renames schema keywords (`default` becomes `_default`).
    const crd = (await customObjects.getClusterCustomObject({
      group: 'apiextensions.k8s.io',
      version: 'v1',
      plural: 'customresourcedefinitions',
      name: 'redisclusters.redis.redkite.io',
    })) as { spec: { versions: { schema: { openAPIV3Schema: unknown }; subresources: { scale: unknown } }[] } };
    expect(crd.spec.versions[0].schema.openAPIV3Schema).toEqual(redisClusterOpenApiSchema());
    expect(crd.spec.versions[0].subresources.scale).toEqual(REDIS_CLUSTER_SCALE_SUBRESOURCE);
  });

  it.each(cases.map((admission) => [admission.id, admission] as const))('%s', async (_id, admission: AdmissionCase) => {
    let oldObject: KubernetesObject | undefined;
    if (admission.oldObject) {
      const created = await create(admission.oldObject);
      if (!created.accepted) throw new Error(`the old object of ${admission.id} was rejected: ${created.message}`);
      oldObject = created.stored;
    }
    const answer = oldObject ? await replace(oldObject, admission.object) : await create(admission.object);
    // The stored old object (defaulted by the apiserver) is what transition rules compare with.
    const offline = validateRedisClusterObject(admission.object, { oldObject }).map(fieldErrorText);
    const errorsAgree = answer.accepted || answer.errors.every((error) => offline.includes(error));
    const identical = answer.accepted ? offline.length === 0 : [...offline].sort().join('\n') === [...answer.errors].sort().join('\n');
    outcomes.push({ id: admission.id, verdictsAgree: answer.accepted === (offline.length === 0), errorsAgree, identical });

    expect({ accepted: offline.length === 0, errors: offline }).toEqual(
      answer.accepted ? { accepted: true, errors: [] } : { accepted: false, errors: expect.arrayContaining(answer.errors) },
    );
    expect(answer.accepted).toBe(admission.verdict === 'accept');
    if (!answer.accepted) expect(answer.message).toContain(admission.message);
  });
});
