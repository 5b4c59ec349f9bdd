/** What the reconciler asked of the apiserver. */
export interface ApiCall {
  readonly system: 'api';
  readonly verb: 'get' | 'list' | 'apply' | 'create' | 'mergePatch' | 'patchStatus' | 'delete';
  readonly apiVersion: string;
  readonly kind: string;
  readonly namespace: string | undefined;
  readonly name: string | undefined;
  /** The body as it would go on the wire (JSON round trip). */
  readonly body?: unknown;
  /** The resourceVersion the write was conditional on (merge patch `metadata.resourceVersion`, status option). */
  readonly precondition?: string;
  /** `ok`, or the HTTP status the fake answered with; `aborted`: the signal was aborted, nothing was sent. */
  outcome: 'ok' | 409 | 404 | 'aborted';
}

/** One command the reconciler sent to a Redis server. */
export interface RedisCall {
  readonly system: 'redis';
  /** `probe`, `REPLICAOF`, `REPLICAOF NO ONE`, `CONFIG SET`, `SWITCHOVER`, `ACL SETUSER`. */
  readonly command: string;
  /** `host:port` of the server. */
  readonly address: string;
  readonly details?: Record<string, unknown>;
  /** The command's signal was aborted: nothing was sent. */
  aborted?: boolean;
}

/** One Event the reconciler recorded (an API write too). */
export interface EventCall {
  readonly system: 'event';
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly note: string;
}

export type JournalEntry = ApiCall | RedisCall | EventCall;

const READ_VERBS: ReadonlySet<ApiCall['verb']> = new Set(['get', 'list']);

/**
 * Every call the reconciler made to its fakes, in the order it made them, so a test can assert "this write came
 * before that command" across the apiserver and Redis.
 */
export class CallJournal {
  readonly entries: JournalEntry[] = [];
  private mark = 0;

  record<T extends JournalEntry>(entry: T): T {
    this.entries.push(entry);
    return entry;
  }

  /** Starts a new window: {@link sinceMark} returns only what was recorded after this call. */
  markNow(): void {
    this.mark = this.entries.length;
  }

  sinceMark(): JournalEntry[] {
    return this.entries.slice(this.mark);
  }

  /** API writes the apiserver carried out (reads, refused and aborted requests excluded). */
  apiWrites(entries: readonly JournalEntry[] = this.entries): ApiCall[] {
    return entries.filter((entry): entry is ApiCall => entry.system === 'api' && !READ_VERBS.has(entry.verb) && entry.outcome === 'ok');
  }

  /** Every API write attempted, whatever the answer. */
  apiWriteAttempts(entries: readonly JournalEntry[] = this.entries): ApiCall[] {
    return entries.filter((entry): entry is ApiCall => entry.system === 'api' && !READ_VERBS.has(entry.verb));
  }

  apiReads(entries: readonly JournalEntry[] = this.entries): ApiCall[] {
    return entries.filter((entry): entry is ApiCall => entry.system === 'api' && READ_VERBS.has(entry.verb));
  }

  /** Redis commands other than probes: the ones that change a server. */
  redisCommands(entries: readonly JournalEntry[] = this.entries): RedisCall[] {
    return entries.filter((entry): entry is RedisCall => entry.system === 'redis' && entry.command !== 'probe' && entry.aborted !== true);
  }

  probes(entries: readonly JournalEntry[] = this.entries): RedisCall[] {
    return entries.filter((entry): entry is RedisCall => entry.system === 'redis' && entry.command === 'probe');
  }

  events(entries: readonly JournalEntry[] = this.entries): EventCall[] {
    return entries.filter((entry): entry is EventCall => entry.system === 'event');
  }

  /** One line per call that changes something, for readable failure messages. */
  describeChanges(entries: readonly JournalEntry[] = this.entries): string[] {
    return entries.flatMap((entry) => {
      if (entry.system === 'api') {
        return READ_VERBS.has(entry.verb) ? [] : [`api ${entry.verb} ${entry.kind} ${entry.namespace ?? ''}/${entry.name ?? ''} → ${entry.outcome}`];
      }
      if (entry.system === 'redis') return entry.command === 'probe' ? [] : [`redis ${entry.command} ${entry.address} ${JSON.stringify(entry.details ?? {})}`];
      return [`event ${entry.type} ${entry.reason}: ${entry.note}`];
    });
  }
}
