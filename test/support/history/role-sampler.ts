import { setTimeout as delay } from 'node:timers/promises';
import { ReplyError, type default as Redis } from 'ioredis';
import { endpointAddress, type RedisEndpoint } from '../../../operator/redis';
import { pipelineReplies } from '../../../operator/redis/pipeline-replies';
import { messageOf, openConnection, withDeadline } from './redis-connection';
import { memberStateFromReplies } from './member-state';
import {
  longestWithoutWritable,
  maximumSimultaneouslyWritable,
  type MemberSample,
  type MemberTimeline,
  type SimultaneousWritable,
  type TimeWindow,
} from './writable-windows';

/** A member to sample: its stable name (a pod name) and where it answers now (pod IPs change). */
export interface SampledMember extends RedisEndpoint {
  readonly name: string;
}

/** Options of {@link RoleSampler.start}. */
export interface RoleSamplerOptions {
  /** The members now. Asked every `membersRefreshMilliseconds`; the last good answer stays in use when it throws. */
  readonly members: () => readonly SampledMember[] | Promise<readonly SampledMember[]>;
  /** Pause between two samples of one member. @default 20 */
  readonly intervalMilliseconds?: number;
  /** A member that has not answered by then is sampled as `unanswered`, and its connection is replaced. @default 250 */
  readonly timeoutMilliseconds?: number;
  /** @default 250 */
  readonly membersRefreshMilliseconds?: number;
}

/** What the samples say, over the whole sampling. */
export interface RoleSummary {
  readonly startedAt: number;
  readonly stoppedAt: number;
  readonly maxWritablePrimaries: number;
  /** The first window where that many members were writable at once, and which. */
  readonly maxWritablePrimariesWindow: SimultaneousWritable['window'];
  readonly longestNoWritablePrimaryMilliseconds: number;
  readonly longestNoWritablePrimaryWindow: TimeWindow | undefined;
  /** Samples taken, and how many went unanswered, per member. */
  readonly samplesPerMember: Readonly<Record<string, { readonly taken: number; readonly unanswered: number }>>;
}

/**
 * Runs `ROLE`, `INFO replication` and `CONFIG GET min-replicas-to-write` (one pipeline, one round trip) on every
 * member, each member in its own loop with its own deadline, so a frozen server delays only its own samples.
 *
 * A member counts as *writable* when it reports role master, is not in the middle of a `FAILOVER` (its writes are
 * paused), and — when it enforces min-replicas-to-write (INFO shows `min_slaves_good_slaves` only then) — has at
 * least that many good replicas: exactly the test Redis applies before it answers -NOREPLICAS. Reading the server's
 * own counters is cheaper and more faithful than a probe write, which would also add to the replication stream.
 * Writable primaries are counted from Redis, never from pod labels (the rules: ./member-state.ts).
 */
export class RoleSampler {
  readonly startedAt = Date.now();
  private stoppedAt: number | undefined;
  private stopping = false;
  private readonly samplers = new Map<string, MemberSampler>();
  private members: readonly SampledMember[] = [];
  private readonly refreshLoop: Promise<void>;

  private constructor(private readonly options: RoleSamplerOptions) {
    this.refreshLoop = this.refreshMembers();
  }

  /** Starts sampling at once. */
  static start(options: RoleSamplerOptions): RoleSampler {
    return new RoleSampler(options);
  }

  /** Stops every loop and closes every connection. Idempotent. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.refreshLoop;
    await Promise.all([...this.samplers.values()].map((sampler) => sampler.stop()));
    this.stoppedAt ??= Date.now();
  }

  /** Every member's samples so far. */
  timelines(): MemberTimeline[] {
    return [...this.samplers.entries()].map(([member, sampler]) => ({ member, samples: sampler.samples }));
  }

  /** The figures over the sampling so far (up to now, or to {@link stop}). */
  summary(): RoleSummary {
    const stoppedAt = this.stoppedAt ?? Date.now();
    const timelines = this.timelines();
    const simultaneous = maximumSimultaneouslyWritable(timelines);
    const firstSentAt = Math.min(stoppedAt, ...timelines.flatMap(({ samples }) => (samples.length > 0 ? [samples[0]!.sentAt] : [])));
    const longest = longestWithoutWritable(timelines, firstSentAt, stoppedAt);
    return {
      startedAt: this.startedAt,
      stoppedAt,
      maxWritablePrimaries: simultaneous.count,
      maxWritablePrimariesWindow: simultaneous.window,
      longestNoWritablePrimaryMilliseconds: longest === undefined ? 0 : longest.to - longest.from,
      longestNoWritablePrimaryWindow: longest,
      samplesPerMember: Object.fromEntries(
        timelines.map(({ member, samples }) => [
          member,
          { taken: samples.length, unanswered: samples.filter((sample) => sample.state === 'unanswered').length },
        ]),
      ),
    };
  }

  /** The latest known address of a member, for messages. */
  addressOf(member: string): string | undefined {
    const found = this.members.find((candidate) => candidate.name === member);
    return found === undefined ? undefined : endpointAddress(found);
  }

  private async refreshMembers(): Promise<void> {
    const refreshMilliseconds = this.options.membersRefreshMilliseconds ?? 250;
    while (!this.stopping) {
      try {
        this.members = await withDeadline(Promise.resolve(this.options.members()), 5000, 'listing the members');
      } catch {
        // The member list comes from the apiserver, which chaos may restart or stall: keep sampling the last known members.
      }
      for (const member of this.members) {
        if (!this.samplers.has(member.name)) {
          this.samplers.set(member.name, new MemberSampler(() => this.members.find((candidate) => candidate.name === member.name), this.options));
        }
      }
      await delay(refreshMilliseconds);
    }
  }
}

/** One member's sampling loop. It ends when the member leaves the list or the sampler stops. */
class MemberSampler {
  readonly samples: MemberSample[] = [];
  private running = true;
  private client: Redis | undefined;
  private clientAddress = '';
  private readonly loop: Promise<void>;

  constructor(
    private readonly current: () => SampledMember | undefined,
    private readonly options: RoleSamplerOptions,
  ) {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    const intervalMilliseconds = this.options.intervalMilliseconds ?? 20;
    try {
      while (this.running) {
        const member = this.current();
        if (member === undefined) {
          // Left the cluster: a member that comes back under the same name is sampled by this loop again.
          await delay(intervalMilliseconds);
          continue;
        }
        const started = Date.now();
        this.samples.push(await this.sample(member));
        await delay(Math.max(0, intervalMilliseconds - (Date.now() - started)));
      }
    } finally {
      this.client?.disconnect();
    }
  }

  private async sample(member: SampledMember): Promise<MemberSample> {
    const timeoutMilliseconds = this.options.timeoutMilliseconds ?? 250;
    const sentAt = Date.now();
    try {
      const client = await this.connection(member, timeoutMilliseconds);
      const replies = await withDeadline(
        client.pipeline().call('ROLE').info('replication').config('GET', 'min-replicas-to-write').exec(),
        timeoutMilliseconds,
        `ROLE on ${endpointAddress(member)}`,
      );
      const answered = pipelineReplies(replies, 3);
      // ioredis fails each command of a pipeline on its own when it times out or the connection drops: no answer.
      const unanswered = answered.find((reply) => reply.error !== undefined && !(reply.error instanceof ReplyError));
      if (unanswered !== undefined) throw unanswered.error;
      const [role, replication, minReplicasToWrite] = answered;
      return { sentAt, receivedAt: Date.now(), ...memberStateFromReplies(role!, replication!, minReplicasToWrite!) };
    } catch (error) {
      // A reply that never came leaves the connection busy: the next sample uses a new one.
      this.client?.disconnect();
      this.client = undefined;
      return { sentAt, receivedAt: Date.now(), state: 'unanswered', detail: messageOf(error) };
    }
  }

  private async connection(member: SampledMember, timeoutMilliseconds: number): Promise<Redis> {
    const address = endpointAddress(member);
    if (this.client !== undefined && this.clientAddress === address && this.client.status === 'ready') {
      return this.client;
    }
    this.client?.disconnect();
    this.client = await openConnection(member, timeoutMilliseconds);
    this.clientAddress = address;
    return this.client;
  }
}
