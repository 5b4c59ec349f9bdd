/** The Redis port every pod listens on (src/naming.ts REDIS_PORT). */
export const FAKE_REDIS_PORT = 6379;

/** How one fake Redis process stands; tests change these fields to inject faults. */
export interface FakeRedisServer {
  /** Pod IP. */
  readonly host: string;
  /** `run_id`; a restart gets a new one. */
  runId: string;
  /** `serving` answers; `unreachable` never answers (dead, frozen, partitioned): probes time out. */
  reachability: 'serving' | 'unreachable';
  /** Loading its data set: answers INFO but reports `loading:1`. */
  loading: boolean;
  /** Passwords the default user accepts; any other gets `-WRONGPASS`. */
  readonly passwords: Set<string>;
  role: 'primary' | 'replica';
  /** `master_replid`. A linked replica takes its primary's. */
  replicationId: string;
  /** `master_replid2` after a promotion. */
  secondaryReplicationId: string | undefined;
  /** `second_repl_offset`; -1 when none. */
  secondaryOffset: number;
  /** `master_repl_offset`. */
  offset: number;
  keys: number;
  /** Replicas: the address followed (`master_host`). */
  primaryHost: string | undefined;
  primaryPort: number | undefined;
  /**
   * Replicas: the link stays down although the primary serves, for this many seconds so far (the state that only
   * a reconnect — `CLIENT KILL TYPE master` — repairs, since `REPLICAOF` to the same primary is a no-op).
   */
  stuckLinkDownSeconds: number | undefined;
  /** Replicas: what `master_link_down_since_seconds` says when the primary does not answer. @default 1 */
  linkDownSeconds: number;
  /** Live configuration (`CONFIG GET`). */
  readonly config: Map<string, string>;
  /** Parameters whose `CONFIG SET` this server refuses, with the error reply. */
  readonly refusedConfig: Map<string, string>;
}

/** A server as a fresh process reports it: a replica of nobody with no data, unless overridden. */
export function fakeRedisServer(host: string, overrides: Partial<FakeRedisServer> = {}): FakeRedisServer {
  return {
    host,
    runId: `run-${host}`,
    reachability: 'serving',
    loading: false,
    passwords: new Set(),
    role: 'replica',
    replicationId: `replid-${host}`,
    secondaryReplicationId: undefined,
    secondaryOffset: -1,
    offset: 0,
    keys: 0,
    primaryHost: undefined,
    primaryPort: undefined,
    stuckLinkDownSeconds: undefined,
    linkDownSeconds: 1,
    config: new Map([['min-replicas-to-write', '0']]),
    refusedConfig: new Map(),
    ...overrides,
  };
}
