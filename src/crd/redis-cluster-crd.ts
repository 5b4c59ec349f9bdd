import { ApiObject, ApiObjectMetadata } from 'cdk8s';
import { Construct } from 'constructs';
import {
  REDIS_CLUSTER_CATEGORIES,
  REDIS_CLUSTER_CRD_NAME,
  REDIS_CLUSTER_GROUP,
  REDIS_CLUSTER_KIND,
  REDIS_CLUSTER_PLURAL,
  REDIS_CLUSTER_SHORT_NAMES,
  REDIS_CLUSTER_SINGULAR,
  REDIS_CLUSTER_VERSION,
} from '../api/api-group';
import { REDIS_CLUSTER_SCALE_SUBRESOURCE } from '../api/redis-cluster-scale';
import { redisClusterOpenApiSchema } from '../api/redis-cluster-schema';

export interface RedisClusterCrdProps {
  /**
   * Extra metadata (for example Argo CD annotations) merged into the CRD's metadata.
   * @default - none
   */
  readonly metadata?: Omit<ApiObjectMetadata, 'name'>;
}

/**
 * The RedisCluster CustomResourceDefinition: OpenAPI schema with defaults and CEL rules from `src/api`,
 * printer columns, and the status and scale subresources.
 */
export class RedisClusterCrd extends Construct {
  public readonly crd: ApiObject;

  constructor(scope: Construct, id: string, props: RedisClusterCrdProps = {}) {
    super(scope, id);
    // A raw ApiObject, not k8s.KubeCustomResourceDefinition: the typed class re-maps schema keys to camelCase
    // and would drop `x-kubernetes-validations` and friends.
    this.crd = new ApiObject(this, 'crd', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: {
        ...props.metadata,
        name: REDIS_CLUSTER_CRD_NAME,
        labels: { 'app.kubernetes.io/name': 'redkite', 'app.kubernetes.io/part-of': 'redkite', ...props.metadata?.labels },
      },
      spec: {
        group: REDIS_CLUSTER_GROUP,
        scope: 'Namespaced',
        names: {
          kind: REDIS_CLUSTER_KIND,
          listKind: `${REDIS_CLUSTER_KIND}List`,
          plural: REDIS_CLUSTER_PLURAL,
          singular: REDIS_CLUSTER_SINGULAR,
          shortNames: [...REDIS_CLUSTER_SHORT_NAMES],
          categories: [...REDIS_CLUSTER_CATEGORIES],
        },
        versions: [
          {
            name: REDIS_CLUSTER_VERSION,
            served: true,
            storage: true,
            schema: { openAPIV3Schema: redisClusterOpenApiSchema() },
            subresources: {
              status: {},
              scale: { ...REDIS_CLUSTER_SCALE_SUBRESOURCE },
            },
            additionalPrinterColumns: [
              { name: 'Ready', type: 'string', jsonPath: '.status.ready', description: 'Ready pods / pods' },
              { name: 'Primary', type: 'string', jsonPath: '.status.primary', description: 'Pod that is the current primary' },
              { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
              { name: 'Version', type: 'string', jsonPath: '.spec.version', priority: 1 },
              { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
            ],
          },
        ],
      },
    });
  }
}
