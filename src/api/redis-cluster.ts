import { Construct } from 'constructs';
import { RedisCluster as GeneratedRedisCluster, RedisClusterProps } from '../../imports/redis.redkite.io';
import { validationOncePerSynth } from './synth-validation';
import { redisClusterValidationMessages } from './validate-redis-cluster';

/**
 * A RedisCluster object in a cdk8s chart: the typed class `cdk8s import` generates from redkite's CRD (imports/),
 * plus admission at synth time. `app.synth()` and `cdk8s synth` fail on a spec the apiserver would reject, with the
 * apiserver's own message naming the object (same schema, same CEL rules; see validate-redis-cluster.ts).
 * The object is checked as rendered, after JSON patches and chart defaults such as the namespace.
 */
export class RedisCluster extends GeneratedRedisCluster {
  constructor(scope: Construct, id: string, props: RedisClusterProps) {
    super(scope, id, props);
    this.node.addValidation(validationOncePerSynth(() => redisClusterValidationMessages(this.toJson())));
  }
}
