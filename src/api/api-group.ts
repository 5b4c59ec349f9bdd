/** The RedisCluster API's identity: one place, so the CRD, the constructs and the controller agree. */
export const REDIS_CLUSTER_GROUP = 'redis.redkite.io';
export const REDIS_CLUSTER_VERSION = 'v1alpha1';
export const REDIS_CLUSTER_API_VERSION = `${REDIS_CLUSTER_GROUP}/${REDIS_CLUSTER_VERSION}`;
export const REDIS_CLUSTER_KIND = 'RedisCluster';
export const REDIS_CLUSTER_PLURAL = 'redisclusters';
export const REDIS_CLUSTER_SINGULAR = 'rediscluster';
/** `rc` would collide with ReplicationController; `rdc` collides with no built-in kind. */
export const REDIS_CLUSTER_SHORT_NAMES = ['rdc'];
export const REDIS_CLUSTER_CATEGORIES = ['redkite'];
export const REDIS_CLUSTER_CRD_NAME = `${REDIS_CLUSTER_PLURAL}.${REDIS_CLUSTER_GROUP}`;
