import type { KubernetesRestClient } from '../client/rest-client';
import { isNotFound } from '../errors';
import type { LeaseLock, LeaseRecord, ObservedLease } from './lease-lock';

interface LeaseObject {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec?: Partial<LeaseRecord>;
}

/** {@link LeaseLock} on a `coordination.k8s.io/v1` Lease. */
export class ApiLeaseLock implements LeaseLock {
  public readonly description: string;

  constructor(
    private readonly rest: KubernetesRestClient,
    private readonly namespace: string,
    private readonly name: string,
  ) {
    this.description = `${namespace}/${name}`;
  }

  async get(signal: AbortSignal): Promise<ObservedLease | undefined> {
    try {
      return toObserved(await this.rest.request<LeaseObject>({ method: 'GET', path: this.objectPath(), signal, timeoutMs: 10_000 }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async create(record: LeaseRecord, signal: AbortSignal): Promise<ObservedLease> {
    const lease: LeaseObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: record,
    };
    return toObserved(await this.rest.request<LeaseObject>({ method: 'POST', path: this.collectionPath(), body: lease, signal, timeoutMs: 10_000 }));
  }

  async update(record: LeaseRecord, resourceVersion: string, signal: AbortSignal): Promise<ObservedLease> {
    const lease: LeaseObject = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      // PUT with resourceVersion: the apiserver answers 409 if another candidate wrote first.
      metadata: { name: this.name, namespace: this.namespace, resourceVersion },
      spec: record,
    };
    return toObserved(await this.rest.request<LeaseObject>({ method: 'PUT', path: this.objectPath(), body: lease, signal, timeoutMs: 10_000 }));
  }

  private collectionPath(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(this.namespace)}/leases`;
  }

  private objectPath(): string {
    return `${this.collectionPath()}/${encodeURIComponent(this.name)}`;
  }
}

function toObserved(lease: LeaseObject): ObservedLease {
  const spec = lease.spec ?? {};
  return {
    resourceVersion: lease.metadata.resourceVersion ?? '',
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: spec.acquireTime,
      renewTime: spec.renewTime,
      leaseTransitions: spec.leaseTransitions ?? 0,
    },
  };
}
