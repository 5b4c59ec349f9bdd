import type { EventSink, EventsV1Event } from '../../../../operator/runtime/events/event-sink';
import { EventDescription, EventRecorder } from '../../../../operator/runtime/events/recorder';
import { configMap } from '../support/objects';
import { recordingLogger, silentLogger } from '../support/test-logger';

class MemoryEventSink implements EventSink {
  readonly created: EventsV1Event[] = [];
  readonly seriesUpdates: Array<{ name: string; count: number; lastObservedTime: string }> = [];
  failNext = false;

  async create(event: EventsV1Event): Promise<void> {
    await Promise.resolve();
    if (this.failNext) {
      this.failNext = false;
      throw new Error('apiserver unavailable');
    }
    this.created.push(event);
  }

  async updateSeries(_namespace: string, name: string, series: { count: number; lastObservedTime: string }): Promise<void> {
    await Promise.resolve();
    this.seriesUpdates.push({ name, ...series });
  }
}

const scaled: EventDescription = { type: 'Normal', reason: 'ScaledUp', action: 'Reconcile', note: 'scaled to 3 replicas' };

function recorderOver(sink: EventSink, options: { aggregationWindowMs?: number; burstPerObject?: number; logger?: typeof silentLogger } = {}) {
  return new EventRecorder(sink, {
    reportingController: 'redkite.io/operator',
    reportingInstance: 'pod-1',
    logger: options.logger ?? silentLogger,
    aggregationWindowMs: options.aggregationWindowMs,
    burstPerObject: options.burstPerObject,
  });
}

describe('EventRecorder', () => {
  beforeEach(() => jest.useFakeTimers({ now: Date.UTC(2025, 0, 1) }));
  afterEach(() => jest.useRealTimers());

  it('creates an events.k8s.io/v1 Event about the object', async () => {
    const sink = new MemoryEventSink();
    await expect(recorderOver(sink).event(configMap('a'), scaled)).resolves.toBe('created');
    expect(sink.created[0]).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'default' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'redkite.io/operator',
      reportingInstance: 'pod-1',
      reason: 'ScaledUp',
      action: 'Reconcile',
      note: 'scaled to 3 replicas',
      type: 'Normal',
      regarding: { kind: 'ConfigMap', name: 'a', namespace: 'default', uid: 'uid-a' },
    });
    expect(sink.created[0].metadata.name).toMatch(/^a\.[0-9a-f]+$/);
  });

  it('turns repeats within the window into a series on the first Event', async () => {
    const sink = new MemoryEventSink();
    const recorder = recorderOver(sink);
    await recorder.event(configMap('a'), scaled);
    await jest.advanceTimersByTimeAsync(1000);
    await expect(recorder.event(configMap('a'), scaled)).resolves.toBe('aggregated');
    await jest.advanceTimersByTimeAsync(1000);
    await recorder.event(configMap('a'), scaled);
    expect(sink.created).toHaveLength(1);
    expect(sink.seriesUpdates).toEqual([
      { name: sink.created[0].metadata.name, count: 2, lastObservedTime: '2025-01-01T00:00:01.000000Z' },
      { name: sink.created[0].metadata.name, count: 3, lastObservedTime: '2025-01-01T00:00:02.000000Z' },
    ]);
  });

  it('creates a new Event when the note differs', async () => {
    const sink = new MemoryEventSink();
    const recorder = recorderOver(sink);
    await recorder.event(configMap('a'), scaled);
    await recorder.event(configMap('a'), { ...scaled, note: 'scaled to 5 replicas' });
    expect(sink.created).toHaveLength(2);
  });

  it('creates a new Event once the window has passed', async () => {
    const sink = new MemoryEventSink();
    const recorder = recorderOver(sink, { aggregationWindowMs: 60_000 });
    await recorder.event(configMap('a'), scaled);
    await jest.advanceTimersByTimeAsync(60_001);
    await expect(recorder.event(configMap('a'), scaled)).resolves.toBe('created');
    expect(sink.created).toHaveLength(2);
  });

  it('does not create two Events for concurrent repeats', async () => {
    const sink = new MemoryEventSink();
    const recorder = recorderOver(sink);
    const outcomes = await Promise.all([1, 2, 3].map(() => recorder.event(configMap('a'), scaled)));
    expect(outcomes).toEqual(['created', 'aggregated', 'aggregated']);
    expect(sink.created).toHaveLength(1);
  });

  it('drops events beyond the per-object burst and refills over time', async () => {
    const sink = new MemoryEventSink();
    const recorder = recorderOver(sink, { burstPerObject: 3 });
    const outcomes: string[] = [];
    for (let index = 0; index < 5; index += 1) outcomes.push(await recorder.event(configMap('a'), { ...scaled, note: `n${index}` }));
    expect(outcomes).toEqual(['created', 'created', 'created', 'dropped-rate-limited', 'dropped-rate-limited']);
    await expect(recorder.event(configMap('b'), scaled)).resolves.toBe('created');
    await jest.advanceTimersByTimeAsync(300_000);
    await expect(recorder.event(configMap('a'), { ...scaled, note: 'later' })).resolves.toBe('created');
  });

  it('logs a failed write instead of throwing, and starts a fresh series next time', async () => {
    const sink = new MemoryEventSink();
    const { logger, entries } = recordingLogger();
    const recorder = recorderOver(sink, { logger });
    sink.failNext = true;
    await expect(recorder.event(configMap('a'), scaled)).resolves.toBe('failed');
    expect(entries.some((entry) => entry.msg === 'could not record event' && entry.level === 'warn')).toBe(true);
    await expect(recorder.event(configMap('a'), scaled)).resolves.toBe('created');
  });

  it('truncates notes to the API limit of 1 KiB', async () => {
    const sink = new MemoryEventSink();
    await recorderOver(sink).event(configMap('a'), { ...scaled, note: 'x'.repeat(5000) });
    expect(Buffer.byteLength(sink.created[0].note)).toBeLessThanOrEqual(1024);
  });
});
