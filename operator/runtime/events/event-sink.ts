import type { KubernetesClient } from '../client/kubernetes-client';
import { PatchContentType } from '../client/rest-client';

/** An `events.k8s.io/v1` Event, as far as the recorder writes it. */
export interface EventsV1Event {
  apiVersion: 'events.k8s.io/v1';
  kind: 'Event';
  metadata: { name: string; namespace: string };
  eventTime: string;
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  note: string;
  type: 'Normal' | 'Warning';
  regarding: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
  series?: { count: number; lastObservedTime: string };
}

/** Where Events go: the API in production, an array in tests. */
export interface EventSink {
  create(event: EventsV1Event): Promise<void>;
  /** Merge-patches the `series` of an Event created earlier. */
  updateSeries(namespace: string, name: string, series: { count: number; lastObservedTime: string }): Promise<void>;
}

/** {@link EventSink} writing to `events.k8s.io/v1`. */
export class ApiEventSink implements EventSink {
  constructor(private readonly client: KubernetesClient) {}

  async create(event: EventsV1Event): Promise<void> {
    await this.client.rest.request({
      method: 'POST',
      path: `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(event.metadata.namespace)}/events`,
      body: event,
    });
  }

  async updateSeries(namespace: string, name: string, series: { count: number; lastObservedTime: string }): Promise<void> {
    await this.client.rest.request({
      method: 'PATCH',
      path: `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/events/${encodeURIComponent(name)}`,
      body: { series },
      contentType: PatchContentType.mergePatch,
    });
  }
}
