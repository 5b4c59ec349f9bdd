/**
 * The history checker: writers that record every acknowledged write, a ROLE sampler that counts writable primaries
 * from Redis itself, and a final check that every acknowledged key reads back from the final primary.
 *
 * ```ts
 * const faults = new FaultTimeline();
 * const writer = HistoryWriter.start({ address: () => serviceAddress, acknowledgement: 'wait' });
 * const sampler = RoleSampler.start({ members: () => podAddresses() });
 * const healed = faults.begin('freeze', primaryPod); ...; healed();
 * assertHistory(await checkHistory({ writers: [writer], sampler, finalPrimary, faults }));
 * ```
 */
export { FaultTimeline, faultBefore, faultsAt, type FaultWindow } from './fault-timeline';
export { checkHistory, type HistoryCheckOptions, type HistoryResult, type LostWrite, type WriterFigures } from './history-checker';
export { assertHistory, formatHistory, historyViolations, HistoryViolationError, type HistoryLimits } from './history-report';
export {
  HistoryWriter,
  type AcknowledgementMode,
  type ConnectionPolicy,
  type FailedWrite,
  type HistoryWriterOptions,
  type RecordedWrite,
  type WriterConnection,
} from './history-writer';
export { memberStateFromReplies, type MemberVerdict } from './member-state';
export { RoleSampler, type RoleSamplerOptions, type RoleSummary, type SampledMember } from './role-sampler';
export {
  definitelyWritableWindows,
  longestUncoveredWindow,
  longestWithoutWritable,
  maximumSimultaneouslyWritable,
  possiblyWritableWindows,
  type MemberSample,
  type MemberState,
  type MemberTimeline,
  type SimultaneousWritable,
  type TimeWindow,
} from './writable-windows';
