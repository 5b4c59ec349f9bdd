import type { EventDescription, EventOutcome, EventRecorder, KubernetesObject } from '../../../../operator/runtime';
import type { CallJournal } from './call-journal';

/** Records Events in the journal (each one is an API write in a real cluster) instead of creating them. */
export class FakeEventRecorder implements Pick<EventRecorder, 'event'> {
  constructor(private readonly journal: CallJournal) {}

  async event(_regarding: KubernetesObject, description: EventDescription): Promise<EventOutcome> {
    this.journal.record({ system: 'event', type: description.type, reason: description.reason, note: description.note });
    return 'created';
  }
}
