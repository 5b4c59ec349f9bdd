import type { RedisEndpoint } from '../../../operator/redis/endpoint';
import type { ReplicationInfo } from '../../../operator/redis/info-parser';
import type { ReplicationSource, SwitchoverCommandSet } from '../../../operator/redis/switchover-commands';
import { OTHER, PRIMARY, TARGET, primaryReplication, replicaReplication } from './replication-info-builders';

type Name = 'primary' | 'target' | 'other';

/**
 * Three servers as the switchover recipe sees them through {@link SwitchoverCommandSet}: every command is recorded
 * in {@link log} (servers by name), and the replies are scripted by the fields below.
 */
export class FakeSwitchoverServers implements SwitchoverCommandSet {
  readonly log: string[] = [];
  /** The primary's offset as checked before the pause. */
  primaryOffset = 1000;
  /** The primary's offset as read with the pause. @default primaryOffset */
  pausedOffset: number | undefined;
  /** The old primary's offset as read when it is detached. @default pausedOffset */
  detachedOffset: number | undefined;
  /** The target's applied offset at its n-th read (0-based), or the error that read fails with. */
  targetOffset: (read: number) => number | Error = () => this.primaryOffset;
  clientsInWait: string[] = [];
  /** Per command (`pause`, `promote`, ...) and server, an error to throw instead of answering. */
  readonly failures = new Map<string, Error>();
  /** Servers whose detach never answers, like a frozen server's. */
  readonly detachHangs = new Set<Name>();
  private targetReads = 0;

  async replication(endpoint: RedisEndpoint): Promise<ReplicationInfo> {
    const name = this.record(endpoint, 'INFO');
    this.fail('info', name);
    if (name === 'primary') return primaryReplication(this.primaryOffset);
    if (name === 'target') {
      const offset = this.targetOffset(this.targetReads++);
      if (offset instanceof Error) throw offset;
      return this.log.includes('PROMOTE target') ? primaryReplication(offset) : replicaReplication(offset);
    }
    return replicaReplication(this.primaryOffset);
  }

  async pauseWrites(endpoint: RedisEndpoint, pauseMilliseconds: number): Promise<ReplicationInfo> {
    const name = this.record(endpoint, 'PAUSE', String(pauseMilliseconds));
    this.fail('pause', name);
    return primaryReplication(this.pausedOffset ?? this.primaryOffset);
  }

  async clientsBlockedInWait(endpoint: RedisEndpoint): Promise<string[]> {
    this.record(endpoint, 'CLIENT LIST');
    return this.clientsInWait;
  }

  async unpause(endpoint: RedisEndpoint): Promise<void> {
    this.fail('unpause', this.record(endpoint, 'UNPAUSE'));
  }

  async replicaOf(endpoint: RedisEndpoint, source: ReplicationSource): Promise<void> {
    this.fail('replicaof', this.record(endpoint, 'REPLICAOF', nameOf(source)));
  }

  async detach(endpoint: RedisEndpoint, unblockWaitClients: readonly string[] = []): Promise<ReplicationInfo> {
    const name = this.record(endpoint, 'DETACH', ...unblockWaitClients.map((id) => `unblock:${id}`));
    if (this.detachHangs.has(name)) return new Promise(() => undefined);
    this.fail('detach', name);
    const offset = name === 'primary' ? (this.detachedOffset ?? this.pausedOffset ?? this.primaryOffset) : this.primaryOffset;
    return replicaReplication(offset, { host: '127.0.0.1', port: 1 }, { primaryLinkUp: false });
  }

  async promote(endpoint: RedisEndpoint): Promise<void> {
    this.fail('promote', this.record(endpoint, 'PROMOTE'));
  }

  async repointAndUnpause(endpoint: RedisEndpoint, source: ReplicationSource): Promise<void> {
    this.fail('repoint', this.record(endpoint, 'REPOINT+UNPAUSE', nameOf(source)));
  }

  async restoreAndUnpause(endpoint: RedisEndpoint): Promise<void> {
    this.fail('restore', this.record(endpoint, 'RESTORE+UNPAUSE'));
  }

  async failoverTo(endpoint: RedisEndpoint, target: RedisEndpoint): Promise<void> {
    this.record(endpoint, 'FAILOVER', nameOf(target));
  }

  private record(endpoint: RedisEndpoint, command: string, ...details: string[]): Name {
    const name = nameOf(endpoint);
    this.log.push([command, name, ...details].join(' '));
    return name;
  }

  private fail(command: string, name: Name): void {
    const failure = this.failures.get(`${command} ${name}`);
    if (failure !== undefined) throw failure;
  }
}

function nameOf(endpoint: { readonly host: string }): Name {
  const names: Record<string, Name> = { [PRIMARY.host]: 'primary', [TARGET.host]: 'target', [OTHER.host]: 'other' };
  const name = names[endpoint.host];
  if (name === undefined) throw new Error(`unknown server ${endpoint.host}`);
  return name;
}
