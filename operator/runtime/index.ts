/**
 * redkite's controller runtime: informers, work queues, controllers, leader election, client helpers and
 * observability on @kubernetes/client-node, with controller-runtime's semantics. Knows nothing about Redis.
 */
export * from './errors';
export * from './clock';
export * from './backoff';
export * from './kubernetes-object';
export * from './reconciler';
export * from './controller';
export * from './controller-builder';
export * from './manager';

export * from './workqueue/rate-limiter';
export * from './workqueue/work-queue';
export * from './workqueue/work-queue-metrics';

export * from './informer/list-watch-source';
export * from './informer/watcher';
export * from './informer/watcher-errors';
export * from './informer/store';
export * from './informer/informer';
export * from './informer/client-list-watch-source';

export * from './client/rest-client';
export * from './client/resource-resolver';
export * from './client/object-reference';
export * from './client/kubernetes-client';
export * from './client/finalizers';
export * from './client/kube-config';

export * from './events/event-sink';
export * from './events/recorder';
export * from './events/micro-time';

export * from './leader-election/lease-lock';
export * from './leader-election/lease-decision';
export * from './leader-election/leader-elector';
export * from './leader-election/api-lease-lock';

export * from './metrics/controller-metrics';
export * from './metrics/workqueue-metrics';
export * from './metrics/leader-election-metrics';
export * from './metrics/runtime-metrics';

export * from './logging/logger';
export * from './server/bind-address';
export * from './server/http-endpoint-server';
