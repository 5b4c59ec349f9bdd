import { endpointAddress, observationFromInfo, RedisCommandError, RedisUnreachableError, type RedisAdministration, type RedisEndpoint, type RedisObservation } from '../../../../operator/redis';
import type { MakeReplicaOfOptions, MakeReplicaOfOutcome, RedisConfigParameters } from '../../../../operator/redis/commands';
import { RedisOperationAbortedError } from '../../../../operator/redis/operation-aborted';
import type { SwitchoverAbortCode, SwitchoverRequest, SwitchoverResult } from '../../../../operator/redis/switchover';
import type { CallJournal, RedisCall } from './call-journal';
import { infoText } from './fake-redis-info';
import { FAKE_REDIS_PORT, fakeRedisServer, type FakeRedisServer } from './fake-redis-server';

const WRONGPASS = 'WRONGPASS invalid username-password pair or user is disabled.';

/**
 * A fleet of in-memory Redis servers behind the controller's {@link RedisAdministration} interface. Every call is
 * recorded in the journal; commands change the servers the way Redis does:
 *
 * - `REPLICAOF NO ONE` makes a primary with a new replication id (the old one becomes `master_replid2`);
 * - `REPLICAOF host port` makes a replica of that address; its link is up while a primary serves there, and it then
 *   has the primary's history and data (instant sync); `REPLICAOF` to the address already followed is a no-op unless
 *   `reconnectIfAlreadyFollowing` (then a stuck link reconnects);
 * - `CONFIG SET` of a parameter in {@link FakeRedisServer.refusedConfig} fails with that error reply (earlier
 *   parameters stay set, as with the real pipelined CONFIG SET);
 * - an unreachable server times out (`RedisUnreachableError`), a wrong password gets `-WRONGPASS`
 *   (`RedisCommandError`), and probes report both as observations, never as exceptions.
 *
 * Probes render Redis 7's INFO text and go through the controller's own parser.
 */
export class FakeRedis implements RedisAdministration {
  private readonly servers = new Map<string, FakeRedisServer>();
  private replicationIds = 0;
  /** Runs as each command (probes included) arrives, before it takes effect. */
  onCommand: ((call: RedisCall) => void) | undefined;
  /** When set, every switchover aborts with this outcome, leaving the old primary in charge. */
  switchoverAborts: { readonly code: SwitchoverAbortCode; readonly reason: string } | undefined;

  constructor(private readonly journal: CallJournal) {}

  add(server: FakeRedisServer): FakeRedisServer {
    this.servers.set(server.host, server);
    return server;
  }

  server(host: string): FakeRedisServer {
    const server = this.servers.get(host);
    if (server === undefined) throw new Error(`fake redis: no server at ${host}`);
    return server;
  }

  /** `count` writes reach the primary at `host` (and, through their links, its replicas). */
  write(host: string, count: number): void {
    const server = this.server(host);
    if (server.role !== 'primary') throw new Error(`fake redis: ${host} is a replica and refuses writes`);
    server.offset += count * 50;
    server.keys += count;
    this.settle();
  }

  /** The process restarts: a new run id, booting as a fenced replica of 127.0.0.1:1, data as `data` says. */
  restart(host: string, data: 'aof' | 'empty'): FakeRedisServer {
    this.settle();
    const before = this.server(host);
    const restarted = fakeRedisServer(host, {
      runId: `${before.runId}-restarted`,
      passwords: before.passwords,
      primaryHost: '127.0.0.1',
      primaryPort: 1,
      replicationId: `replid-restart-${++this.replicationIds}`,
      // AOF restores every key but not the replication position: master_repl_offset 0 with keys.
      keys: data === 'aof' ? before.keys : 0,
    });
    return this.add(restarted);
  }

  async probe(endpoint: RedisEndpoint): Promise<RedisObservation> {
    this.command('probe', endpoint);
    try {
      const server = this.authenticated(endpoint);
      const info = infoText(server, this.linkUp(server), this.replicasOf(server));
      return observationFromInfo(info.server, info.replication, info.persistence, ['min-replicas-to-write', server.config.get('min-replicas-to-write') ?? '0'], info.keyspace);
    } catch (error) {
      if (error instanceof RedisUnreachableError || error instanceof RedisCommandError) return { reachable: false, error };
      throw error;
    }
  }

  async makeReplicaOf(endpoint: RedisEndpoint, primaryHost: string, primaryPort = FAKE_REDIS_PORT, options: MakeReplicaOfOptions = {}): Promise<MakeReplicaOfOutcome> {
    this.command('REPLICAOF', endpoint, { primaryHost, primaryPort, reconnectIfAlreadyFollowing: options.reconnectIfAlreadyFollowing ?? false });
    const server = this.authenticated(endpoint);
    return this.replicaOf(server, primaryHost, primaryPort, options.reconnectIfAlreadyFollowing ?? false);
  }

  async promoteToPrimary(endpoint: RedisEndpoint): Promise<void> {
    this.command('REPLICAOF NO ONE', endpoint);
    this.promote(this.authenticated(endpoint));
  }

  async configSet(endpoint: RedisEndpoint, parameters: RedisConfigParameters): Promise<void> {
    this.command('CONFIG SET', endpoint, { parameters: { ...parameters } });
    const server = this.authenticated(endpoint);
    for (const [name, value] of Object.entries(parameters)) {
      const refusal = server.refusedConfig.get(name);
      if (refusal !== undefined) throw new RedisCommandError(endpointAddress(endpoint), 'CONFIG SET', refusal);
      server.config.set(name, String(value));
    }
  }

  async addPassword(endpoint: RedisEndpoint, password: string): Promise<void> {
    this.command('ACL SETUSER', endpoint, { add: true });
    this.authenticated(endpoint).passwords.add(password);
  }

  async removePassword(endpoint: RedisEndpoint, password: string): Promise<void> {
    this.command('ACL SETUSER', endpoint, { remove: true });
    this.authenticated(endpoint).passwords.delete(password);
  }

  async disconnectClients(endpoint: RedisEndpoint): Promise<void> {
    this.command('CLIENT KILL', endpoint);
    this.authenticated(endpoint);
  }

  /** The whole switchover as one recorded command; it honours the signal the way the real one does. */
  async switchover(request: SwitchoverRequest): Promise<SwitchoverResult> {
    const call = this.command('SWITCHOVER', request.primary, { target: endpointAddress(request.target), otherReplicas: (request.otherReplicas ?? []).map(endpointAddress) }, request.signal);
    if (call.aborted) throw new RedisOperationAbortedError('SWITCHOVER', call.address, { cause: request.signal?.reason });
    const primary = this.authenticated(request.primary);
    const target = this.authenticated(request.target);
    const abort = (code: SwitchoverAbortCode, reason: string): SwitchoverResult => ({ outcome: 'aborted', method: 'pause-and-promote', code, reason, durationMilliseconds: 0, writePauseMilliseconds: 0 });
    if (this.switchoverAborts !== undefined) return abort(this.switchoverAborts.code, this.switchoverAborts.reason);
    if (primary.role !== 'primary') return abort('primary-not-ready', `${primary.host} is not a primary`);
    if (target.primaryHost !== primary.host || !this.linkUp(target)) return abort('target-not-ready', `${target.host} does not replicate from ${primary.host}`);
    this.promote(target);
    this.replicaOf(primary, target.host, FAKE_REDIS_PORT, false);
    for (const other of request.otherReplicas ?? []) this.replicaOf(this.authenticated(other), target.host, FAKE_REDIS_PORT, false);
    return {
      outcome: 'completed',
      method: 'pause-and-promote',
      newPrimary: `${target.host}:${FAKE_REDIS_PORT}`,
      offset: target.offset,
      durationMilliseconds: 0,
      writePauseMilliseconds: 0,
      replicasNotRepointed: [],
    };
  }

  // ---- how the servers behave ----

  private command(command: string, endpoint: RedisEndpoint, details?: Record<string, unknown>, signal?: AbortSignal): RedisCall {
    const call = this.journal.record<RedisCall>({ system: 'redis', command, address: endpointAddress(endpoint), details, aborted: signal?.aborted === true ? true : undefined });
    if (call.aborted) return call;
    this.onCommand?.(call);
    this.settle();
    return call;
  }

  /** The server at the endpoint, if it answers and accepts the password. */
  private authenticated(endpoint: RedisEndpoint): FakeRedisServer {
    const server = this.servers.get(endpoint.host);
    const address = endpointAddress(endpoint);
    if (server === undefined) throw new RedisUnreachableError(address, 'connect ECONNREFUSED');
    if (server.reachability === 'unreachable') throw new RedisUnreachableError(address, 'Command timed out');
    if (server.passwords.size > 0 && (endpoint.password === undefined || !server.passwords.has(endpoint.password))) {
      throw new RedisCommandError(address, 'AUTH', WRONGPASS);
    }
    return server;
  }

  private replicaOf(server: FakeRedisServer, host: string, port: number, reconnect: boolean): MakeReplicaOfOutcome {
    if (server.role === 'replica' && server.primaryHost === host && server.primaryPort === port) {
      // Redis answers "+OK Already connected to specified master": nothing changes, a stuck link stays stuck.
      if (!reconnect) return 'already-following';
      server.stuckLinkDownSeconds = undefined;
      this.settle();
      return 'reconnected';
    }
    server.role = 'replica';
    server.primaryHost = host;
    server.primaryPort = port;
    server.stuckLinkDownSeconds = undefined;
    this.settle();
    return 'repointed';
  }

  private promote(server: FakeRedisServer): void {
    if (server.role === 'primary') return;
    server.role = 'primary';
    server.secondaryReplicationId = server.replicationId;
    server.secondaryOffset = server.offset + 1;
    server.replicationId = `replid-promoted-${++this.replicationIds}`;
    server.primaryHost = undefined;
    server.primaryPort = undefined;
  }

  private linkUp(server: FakeRedisServer): boolean {
    if (server.role !== 'replica' || server.stuckLinkDownSeconds !== undefined || server.primaryPort !== FAKE_REDIS_PORT) return false;
    const primary = server.primaryHost === undefined ? undefined : this.servers.get(server.primaryHost);
    return primary !== undefined && primary.reachability === 'serving' && !primary.loading && primary.role === 'primary';
  }

  private replicasOf(server: FakeRedisServer): FakeRedisServer[] {
    if (server.role !== 'primary') return [];
    return [...this.servers.values()].filter((replica) => replica.primaryHost === server.host && this.linkUp(replica));
  }

  /** Linked replicas hold what their primary holds (replication is instantaneous here). */
  private settle(): void {
    for (const server of this.servers.values()) {
      if (!this.linkUp(server)) continue;
      const primary = this.servers.get(server.primaryHost!)!;
      server.replicationId = primary.replicationId;
      server.offset = primary.offset;
      server.keys = primary.keys;
    }
  }
}
