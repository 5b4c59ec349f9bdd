import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { Manager, createLogger, loadKubeConfig } from './runtime';
import { setupRedisClusterController } from './rediscluster/setup-controller';

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new InvalidArgumentError('must be a positive integer');
  return parsed;
}

/**
 * The version of the installed package, read at run time so it cannot drift from package.json. This file runs as
 * operator/cli.ts in a checkout and as lib/operator/cli.js in the package, one folder deeper.
 */
export function packageVersion(): string {
  for (const candidate of [path.join(__dirname, '..', 'package.json'), path.join(__dirname, '..', '..', 'package.json')]) {
    if (!existsSync(candidate)) continue;
    const manifest: { name?: unknown; version?: unknown } = JSON.parse(readFileSync(candidate, 'utf8'));
    if (manifest.name === 'redkite' && typeof manifest.version === 'string') return manifest.version;
  }
  throw new Error(`redkite's package.json was not found above ${__dirname}`);
}

/** `redkite run`: the RedisCluster controller. */
export function buildCli(): Command {
  const program = new Command('redkite')
    .description('redkite: Redis on Kubernetes as infrastructure-as-code')
    .version(packageVersion(), '-V, --version', 'print the redkite version');
  program
    .command('run')
    .description('run the RedisCluster controller')
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account)')
    .option('--namespace <name>', 'watch RedisClusters in this namespace only (default: all namespaces)')
    .addOption(new Option('--max-concurrent-reconciles <n>', 'reconciles that may run at once').default(4).argParser(positiveInteger))
    .option('--leader-elect', 'elect a leader through a Lease so only one replica reconciles', false)
    .option('--leader-election-namespace <name>', 'namespace of the Lease (default: $POD_NAMESPACE or redkite-system)')
    .option('--metrics-bind-address <address>', 'address of /metrics; "0" disables it', ':8080')
    .option('--health-probe-bind-address <address>', 'address of /healthz and /readyz; "0" disables it', ':8081')
    .action(async (options: {
      kubeconfig?: string;
      namespace?: string;
      maxConcurrentReconciles: number;
      leaderElect: boolean;
      leaderElectionNamespace?: string;
      metricsBindAddress: string;
      healthProbeBindAddress: string;
    }) => {
      const logger = createLogger();
      const identity = process.env.POD_NAME ?? `${hostname()}_${process.pid}`;
      const manager = new Manager({
        kubeConfig: loadKubeConfig(options.kubeconfig),
        namespace: options.namespace,
        metricsBindAddress: options.metricsBindAddress,
        healthProbeBindAddress: options.healthProbeBindAddress,
        logger,
        leaderElection: options.leaderElect
          ? {
              leaseName: 'redkite-operator',
              leaseNamespace: options.leaderElectionNamespace ?? process.env.POD_NAMESPACE ?? 'redkite-system',
              identity,
            }
          : undefined,
      });
      const controller = setupRedisClusterController(manager, { maxConcurrentReconciles: options.maxConcurrentReconciles, reportingInstance: identity });
      try {
        await manager.start();
      } finally {
        await controller.stop();
      }
    });
  return program;
}

if (require.main === module) {
  buildCli()
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    });
}
