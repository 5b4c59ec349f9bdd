/**
 * redis.conf parameters users may not set through `spec.config`, with the reason for each group.
 * The CRD rejects them at admission (CEL) and the workload construct ignores them defensively.
 */
export const MANAGED_CONFIG_KEYS: readonly string[] = [
  // Replication topology and fencing belong to the controller: a user value would fight failover.
  'replicaof', 'slaveof', 'min-replicas-to-write', 'min-slaves-to-write', 'min-replicas-max-lag',
  'min-slaves-max-lag', 'replica-announce-ip', 'slave-announce-ip', 'replica-announce-port',
  'slave-announce-port', 'repl-ping-replica-period', 'repl-ping-slave-period', 'replica-read-only', 'slave-read-only',
  // Networking is fixed by the pod and its Services.
  'port', 'bind', 'bind-source-addr', 'protected-mode', 'unixsocket', 'unixsocketperm', 'tls-port',
  'tls-replication', 'tls-cluster', 'cluster-enabled', 'cluster-config-file',
  // Storage layout is fixed by the volume mounts and by spec.persistence.
  'dir', 'dbfilename', 'appendfilename', 'appenddirname', 'appendonly', 'save',
  // Credentials come from the auth Secret.
  'requirepass', 'masterauth', 'masteruser', 'aclfile', 'user',
  // Process management and dangerous escape hatches.
  'daemonize', 'pidfile', 'logfile', 'supervised', 'include', 'loadmodule', 'rename-command',
  'enable-debug-command', 'enable-module-command', 'enable-protected-configs',
];
