/**
 * Pure parsing of the text `INFO` returns. No I/O, so it is tested on captured outputs of real servers
 * (test/operator/redis/fixtures).
 */

/** `INFO` text as sections (lower-cased, e.g. `replication`) of `field -> raw value`. */
export type InfoSections = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** One entry of a primary's `slaveN:` lines. */
export interface ConnectedReplica {
  /** The address the primary sees the replica connect from (hence `bind-source-addr` on loopback). */
  readonly ip: string;
  /** The port the replica announced (its listening port, not the source port). */
  readonly port: number;
  /** `online`, `wait_bgsave`, `send_bulk`, ... */
  readonly state: string;
  /** Replication offset the replica last acknowledged (REPLCONF ACK). */
  readonly offset: number;
  /** Seconds since the replica's last acknowledgement. */
  readonly lagSeconds: number;
}

/** The `# Replication` section, typed; role names follow the modern vocabulary (primary/replica). */
export interface ReplicationInfo {
  readonly role: 'primary' | 'replica';
  /** `master_replid`: the history this server's data follows. Replicas adopt their primary's. */
  readonly replicationId: string;
  /** `master_repl_offset`: bytes of replication stream this server has in its own data set. */
  readonly replicationStreamOffset: number;
  /** `master_replid2`: the history this server followed before its last promotion (all zeros when none). */
  readonly secondaryReplicationId: string | undefined;
  /** `second_repl_offset`: up to where the `master_replid2` history is shared; -1 when none. */
  readonly secondaryReplicationOffset: number | undefined;
  /** `slave_repl_offset` (replicas only): the offset applied to the data set and acknowledged to the primary. */
  readonly appliedOffset: number | undefined;
  /** `slave_read_repl_offset` (replicas only, 7.0+): the offset read from the primary, maybe not applied yet. */
  readonly receivedOffset: number | undefined;
  readonly primaryHost: string | undefined;
  readonly primaryPort: number | undefined;
  readonly primaryLinkUp: boolean;
  /** `master_last_io_seconds_ago`; undefined when the replica never talked to its primary (-1). */
  readonly primaryLastIoSecondsAgo: number | undefined;
  /** `master_link_down_since_seconds`; undefined while the link is up or when never connected. */
  readonly primaryLinkDownSinceSeconds: number | undefined;
  readonly syncInProgress: boolean;
  readonly connectedReplicas: readonly ConnectedReplica[];
  /** `master_failover_state` (6.2+): `no-failover`, `waiting-for-sync`, `failover-in-progress`. */
  readonly failoverState: string | undefined;
}

/** The fields of `# Server` the controller uses. */
export interface ServerInfo {
  readonly runId: string;
  readonly redisVersion: string;
  readonly uptimeSeconds: number;
}

/** Splits `INFO` output into sections. Tolerates `\r\n` and `\n`, ignores blank lines. */
export function parseInfo(text: string): InfoSections {
  const sections = new Map<string, Map<string, string>>();
  let current = new Map<string, string>();
  sections.set('', current);
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trimEnd();
    if (line === '') {
      continue;
    }
    if (line.startsWith('#')) {
      current = new Map();
      sections.set(line.slice(1).trim().toLowerCase(), current);
      continue;
    }
    const colon = line.indexOf(':');
    if (colon > 0) {
      current.set(line.slice(0, colon), line.slice(colon + 1));
    }
  }
  if (sections.get('')?.size === 0) {
    sections.delete('');
  }
  return sections;
}

/** Reads the `# Replication` section of `INFO replication` (or full `INFO`) output. */
export function parseReplicationInfo(text: string): ReplicationInfo {
  const fields = requireSection(parseInfo(text), 'replication');
  const rawRole = requireField(fields, 'role', 'replication');
  if (rawRole !== 'master' && rawRole !== 'slave') {
    throw new InfoParseError(`unexpected role "${rawRole}"`);
  }
  const role = rawRole === 'master' ? 'primary' : 'replica';
  const lastIo = optionalInteger(fields, 'master_last_io_seconds_ago');
  const linkDownSince = optionalInteger(fields, 'master_link_down_since_seconds');
  return {
    role,
    replicationId: requireField(fields, 'master_replid', 'replication'),
    replicationStreamOffset: requireInteger(fields, 'master_repl_offset'),
    secondaryReplicationId: noHistory(fields.get('master_replid2')),
    secondaryReplicationOffset: optionalInteger(fields, 'second_repl_offset'),
    appliedOffset: optionalInteger(fields, 'slave_repl_offset'),
    receivedOffset: optionalInteger(fields, 'slave_read_repl_offset'),
    primaryHost: fields.get('master_host'),
    primaryPort: optionalInteger(fields, 'master_port'),
    primaryLinkUp: fields.get('master_link_status') === 'up',
    primaryLastIoSecondsAgo: lastIo === undefined || lastIo < 0 ? undefined : lastIo,
    primaryLinkDownSinceSeconds: linkDownSince === undefined || linkDownSince < 0 ? undefined : linkDownSince,
    syncInProgress: fields.get('master_sync_in_progress') === '1',
    connectedReplicas: parseConnectedReplicas(fields),
    failoverState: fields.get('master_failover_state'),
  };
}

/** Reads the `# Server` section. */
export function parseServerInfo(text: string): ServerInfo {
  const fields = requireSection(parseInfo(text), 'server');
  return {
    runId: requireField(fields, 'run_id', 'server'),
    redisVersion: requireField(fields, 'redis_version', 'server'),
    uptimeSeconds: requireInteger(fields, 'uptime_in_seconds'),
  };
}

/** Reads `loading` from the `# Persistence` section: true while the server loads its data set. */
export function parseLoading(text: string): boolean {
  const fields = requireSection(parseInfo(text), 'persistence');
  return requireField(fields, 'loading', 'persistence') === '1';
}

/**
 * Keys in every database, from the `# Keyspace` section (`db0:keys=3,expires=0,avg_ttl=0`). An empty data set
 * prints no `dbN` line at all.
 */
export function parseKeyCount(text: string): number {
  const fields = parseInfo(text).get('keyspace') ?? new Map<string, string>();
  let keys = 0;
  for (const [field, value] of fields) {
    const match = /^db\d+$/.test(field) ? /(?:^|,)keys=(\d+)/.exec(value) : null;
    if (match) keys += Number(match[1]);
  }
  return keys;
}

/** `master_replid2` is forty zeros when the server was never promoted. */
function noHistory(replicationId: string | undefined): string | undefined {
  return replicationId === undefined || /^0+$/.test(replicationId) ? undefined : replicationId;
}

/** INFO text that does not look like what Redis 6.2/7.x prints. */
export class InfoParseError extends Error {
  override readonly name = 'InfoParseError';
}

function parseConnectedReplicas(fields: ReadonlyMap<string, string>): ConnectedReplica[] {
  const replicas: ConnectedReplica[] = [];
  for (const [field, value] of fields) {
    if (!/^slave\d+$/.test(field)) {
      continue;
    }
    const parts = new Map(
      value.split(',').map((pair) => {
        const equals = pair.indexOf('=');
        return [pair.slice(0, equals), pair.slice(equals + 1)] as const;
      }),
    );
    replicas.push({
      ip: parts.get('ip') ?? '',
      port: Number(parts.get('port')),
      state: parts.get('state') ?? '',
      offset: Number(parts.get('offset')),
      lagSeconds: Number(parts.get('lag')),
    });
  }
  return replicas;
}

function requireSection(sections: InfoSections, name: string): ReadonlyMap<string, string> {
  const section = sections.get(name);
  if (section === undefined) {
    throw new InfoParseError(`INFO output has no "# ${name}" section`);
  }
  return section;
}

function requireField(fields: ReadonlyMap<string, string>, name: string, section: string): string {
  const value = fields.get(name);
  if (value === undefined) {
    throw new InfoParseError(`INFO ${section} has no "${name}" field`);
  }
  return value;
}

function requireInteger(fields: ReadonlyMap<string, string>, name: string): number {
  const value = optionalInteger(fields, name);
  if (value === undefined) {
    throw new InfoParseError(`INFO has no integer "${name}" field`);
  }
  return value;
}

function optionalInteger(fields: ReadonlyMap<string, string>, name: string): number | undefined {
  const raw = fields.get(name);
  if (raw === undefined) {
    return undefined;
  }
  const value = Number(raw);
  if (!Number.isInteger(value)) {
    throw new InfoParseError(`INFO field "${name}" is not an integer: "${raw}"`);
  }
  return value;
}
