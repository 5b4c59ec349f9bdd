import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Environment variable the shims read the pod IP from. */
export const POD_IP_VARIABLE = 'REDKITE_POD_IP';

/** Host paths of the Redis programs the shims wrap. */
export interface RedisPrograms {
  readonly redisServer: string;
  readonly redisSentinel: string;
  readonly redisCli: string;
}

/**
 * Writes `redis-server`, `redis-sentinel` and `redis-cli` wrappers into `folder`, which comes first on the PATH
 * of every pod process and exec probe. All pods share the host's loopback, so:
 * - the servers get `--bind <pod IP>` (each pod owns its address, port 6379 stays free for all of them) and
 *   `--bind-source-addr <pod IP>` (otherwise a replica's connections leave from 127.0.0.1 and its primary
 *   reports the replica at 127.0.0.1), plus `--daemonize no` so the agent keeps the process it started;
 * - `protected-mode` defaults to `no`, as in the official images (their Dockerfile patches the compiled default):
 *   a server without a password would otherwise refuse every client but 127.0.0.1 — its replicas and other
 *   pods included. A `--protected-mode` argument or a `protected-mode` line in the config file still wins;
 * - `redis-cli` defaults to `-h <pod IP>` (a later `-h`/`-u` in the arguments still wins), so a probe like
 *   `redis-cli ping` reaches its own pod as it would in a container.
 * Shell scripts of Redis images (`sh -c '... exec redis-server ...'`) get the same treatment for free.
 * The wrappers `exec`, so the PID the agent sees is Redis's own.
 */
export function writeRedisShims(folder: string, programs: RedisPrograms): void {
  mkdirSync(folder, { recursive: true });
  const serverShim = (binary: string): string => `#!/bin/sh
# Written by the redkite node agent: binds Redis to the pod's own loopback IP.
case "\${1:-}" in -v|--version|-h|--help|--test-memory) exec ${binary} "$@" ;; esac
if [ -z "\${${POD_IP_VARIABLE}:-}" ]; then
  exec ${binary} "$@"
fi
# The official images compile protected-mode off; mirror that unless the arguments or the config file set it.
protected_mode="--protected-mode no"
for argument in "$@"; do
  [ "$argument" = "--protected-mode" ] && protected_mode=""
done
if [ $# -gt 0 ] && [ "\${1#-}" = "$1" ]; then
  config_file="$1"
  shift
  grep -qiE '^[[:space:]]*protected-mode[[:space:]]' "$config_file" 2>/dev/null && protected_mode=""
  exec ${binary} "$config_file" $protected_mode "$@" --bind "$${POD_IP_VARIABLE}" --bind-source-addr "$${POD_IP_VARIABLE}" --daemonize no
fi
exec ${binary} $protected_mode "$@" --bind "$${POD_IP_VARIABLE}" --bind-source-addr "$${POD_IP_VARIABLE}" --daemonize no
`;
  const cliShim = `#!/bin/sh
# Written by the redkite node agent: redis-cli talks to the pod's own IP unless told otherwise.
if [ -n "\${${POD_IP_VARIABLE}:-}" ]; then
  exec ${programs.redisCli} -h "$${POD_IP_VARIABLE}" "$@"
fi
exec ${programs.redisCli} "$@"
`;
  const write = (name: string, content: string): void => {
    const path = join(folder, name);
    writeFileSync(path, content);
    chmodSync(path, 0o755);
  };
  write('redis-server', serverShim(programs.redisServer));
  write('redis-sentinel', serverShim(programs.redisSentinel));
  write('redis-cli', cliShim);
}
