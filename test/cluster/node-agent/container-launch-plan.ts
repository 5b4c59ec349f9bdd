import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import type { V1Container } from '@kubernetes/client-node';
import { expandVariableReferences } from './container-env';
import type { PathMapping } from './path-mapping';
import { POD_IP_VARIABLE } from './redis-shims';

/** How to run a container on the host, or why it cannot run. */
export type LaunchPlan =
  | { readonly runnable: true; readonly executable: string; readonly args: string[]; readonly cwd: string; readonly env: Record<string, string> }
  | { readonly runnable: false; readonly reason: string; readonly message: string };

/** What planning a launch needs. */
export interface LaunchContext {
  readonly container: V1Container;
  /** The container's resolved environment (env + envFrom). */
  readonly env: Readonly<Record<string, string>>;
  readonly mapping: PathMapping;
  readonly shimsFolder: string;
  readonly podIp: string;
  readonly hostname: string;
  /** Private scratch folder of the container (HOME). */
  readonly scratchFolder: string;
}

/** The working directory of the official Redis image (and where Redis writes when no `dir` is configured). */
const REDIS_IMAGE_WORKDIR = '/data';
const HOST_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Whether an image is a Redis image, i.e. runs with the host's Redis: the last path segment of its repository
 * is `redis` or `redis-sentinel` (`redis:7.2`, `docker.io/library/redis:7.2-alpine`, `bitnami/redis-sentinel`),
 * and nothing else (`oliver006/redis_exporter` is not).
 */
export function isRedisImage(image: string | undefined): boolean {
  const repository = (image ?? '').split('@')[0].split('/').pop()?.split(':')[0] ?? '';
  return repository === 'redis' || repository === 'redis-sentinel';
}

/**
 * Decides how a container runs on the host. Only Redis images run; their processes get:
 * - the image entrypoint's behaviour when `command` is empty (`docker-entrypoint.sh`: no arguments means
 *   `redis-server`; arguments starting with `-` or ending in `.conf` are passed to `redis-server`);
 * - `$(VAR)` expansion in command and args; every volume mount path inside arguments, env values and the Redis
 *   config file rewritten to the volume's host folder (see PathMapping);
 * - the shims first on PATH (they bind Redis to the pod IP; see writeRedisShims);
 * - for `redis-server`, a trailing `--dir <host folder>`: the folder Redis would have used in a container (its
 *   last `--dir`, else the config file's `dir`, else the working directory, `/data` by default) mapped to the host;
 * - as working directory the container's `workingDir` (default `/data`) mapped to the host.
 * Any program of a Redis image that exists on the host can run (`sh -c ...`, `cp`, `redis-cli`), so init
 * containers and wrapper scripts work.
 */
export function planContainerLaunch(context: LaunchContext): LaunchPlan {
  const { container, mapping } = context;
  if (!isRedisImage(container.image)) {
    return {
      runnable: false,
      reason: 'ImageNotRunnable',
      message: `image "${container.image}" cannot run on the redkite local node agent: it runs only Redis images (redis, redis-sentinel) as host redis-server processes`,
    };
  }
  const expand = (items: readonly string[] | undefined): string[] => (items ?? []).map((item) => expandVariableReferences(item, context.env));
  const command = expand(container.command);
  let argv: string[];
  if (command.length === 0 || basename(command[0]) === 'docker-entrypoint.sh') {
    argv = [...command.slice(1), ...expand(container.args)];
    if (argv.length === 0) argv = ['redis-server'];
    if (argv[0].startsWith('-') || argv[0].endsWith('.conf')) argv.unshift('redis-server');
  } else {
    argv = [...command, ...expand(container.args)];
  }
  argv = argv.map((argument) => mapping.rewriteText(argument));

  const env = hostEnvironment(context);
  const executable = resolveExecutable(argv[0], env.PATH);
  if (!executable) {
    return { runnable: false, reason: 'RunContainerError', message: `executable "${argv[0]}" of container ${container.name} is not available on this host` };
  }
  const args = argv.slice(1);
  const cwd = mapping.toHostDirectory(container.workingDir ?? REDIS_IMAGE_WORKDIR);
  if (basename(argv[0]) === 'redis-server' && !args.includes('--sentinel')) {
    args.push('--dir', redisDataDirectory(args, mapping, cwd));
  }
  return { runnable: true, executable, args, cwd, env };
}

/** The environment of a pod process (also used for exec probes). */
export function hostEnvironment(context: Pick<LaunchContext, 'env' | 'mapping' | 'shimsFolder' | 'podIp' | 'hostname' | 'scratchFolder'>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(context.env)) env[name] = context.mapping.rewriteText(value);
  return {
    HOME: context.scratchFolder,
    HOSTNAME: context.hostname,
    ...env,
    PATH: `${context.shimsFolder}:${HOST_PATH}`,
    [POD_IP_VARIABLE]: context.podIp,
  };
}

/** Finds a program: absolute paths as they are (already rewritten), bare names on PATH. */
export function resolveExecutable(program: string, path: string): string | undefined {
  const candidates = isAbsolute(program) ? [program] : program.includes('/') ? [] : path.split(':').map((folder) => join(folder, program));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return statSync(candidate).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Where Redis keeps its RDB/AOF files: the last `--dir`, else the config file's `dir` (rewriting mount paths in
 * the file in place, so `include`, `aclfile` and `dir` lines point at host folders), else the working directory.
 */
function redisDataDirectory(args: string[], mapping: PathMapping, cwd: string): string {
  const lastDirFlag = args.lastIndexOf('--dir');
  const toHost = (dir: string): string => {
    if (isAbsolute(dir)) return mapping.toHostDirectory(dir);
    const relativeToWorkingDirectory = join(cwd, dir);
    mkdirSync(relativeToWorkingDirectory, { recursive: true });
    return relativeToWorkingDirectory;
  };
  if (lastDirFlag >= 0 && args[lastDirFlag + 1]) return toHost(args[lastDirFlag + 1]);
  const configFile = args[0] && !args[0].startsWith('-') ? args[0] : undefined;
  if (configFile && existsSync(configFile)) {
    const text = readFileSync(configFile, 'utf8');
    const rewritten = mapping.rewriteText(text);
    if (rewritten !== text) writeFileSync(configFile, rewritten);
    const dirLines = [...rewritten.matchAll(/^\s*dir\s+("?)([^"\s]+)\1\s*$/gm)];
    if (dirLines.length > 0) return toHost(dirLines[dirLines.length - 1][2]);
  }
  return cwd;
}
