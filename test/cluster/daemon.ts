/**
 * The cluster daemon: one background process that owns a whole local cluster (etcd, kube-apiserver,
 * kube-controller-manager, node agent and its control API) for one state directory. Started by `cluster:up` and
 * by the e2e global setup through ClusterLauncher; stopped by SIGTERM/SIGINT, or — with `--exit-with-parent` —
 * when the pipe on its stdin closes because its parent died.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import { locateControlPlaneBinaries, locateRedisBinaries } from './binaries';
import { ControlPlane } from './control-plane/control-plane';
import { writeDaemonRecord } from './daemon-record';
import { LoopbackBlock } from './loopback-block';
import { findClusterFirewallRules } from './network/firewall';
import { NetworkFaults } from './network/network-faults';
import { ControlApi } from './node-agent/control-api';
import { NodeAgent } from './node-agent/node-agent';
import { KUBELET_RESTART_BACKOFF, validateRestartBackoff } from './node-agent/restart-backoff';
import { ProcessRegistry } from './process/process-registry';
import { stopTaggedProcesses } from './process/process-tag';
import { StateDirLayout, type ClusterEndpoints } from './state-dir';

const NODE_NAME = 'redkite-node';

async function main(): Promise<void> {
  const options = new Command()
    .requiredOption('--state-dir <dir>', 'state directory of the cluster')
    .option('--exit-with-parent', 'stop when stdin closes (the parent died)', false)
    .option('--restart-minimum-delay-ms <ms>', 'earliest restart of an exited container', String(KUBELET_RESTART_BACKOFF.minimumDelayMilliseconds))
    .option('--restart-backoff-base-ms <ms>', 'crash-loop back-off base', String(KUBELET_RESTART_BACKOFF.baseMilliseconds))
    .option('--restart-backoff-max-ms <ms>', 'crash-loop back-off cap', String(KUBELET_RESTART_BACKOFF.maxMilliseconds))
    .parse()
    .opts<{ stateDir: string; exitWithParent: boolean; restartMinimumDelayMs: string; restartBackoffBaseMs: string; restartBackoffMaxMs: string }>();
  const backoff = validateRestartBackoff({
    minimumDelayMilliseconds: Number(options.restartMinimumDelayMs),
    baseMilliseconds: Number(options.restartBackoffBaseMs),
    maxMilliseconds: Number(options.restartBackoffMaxMs),
  });

  const layout = new StateDirLayout(options.stateDir);
  // Synchronous writes: the log must be complete even when the daemon exits right after a line.
  const log = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, pino.destination({ dest: 1, sync: true }));
  const warn = (message: string, error?: unknown): void => log.warn({ err: error }, message);
  mkdirSync(layout.logs, { recursive: true });
  writeDaemonRecord(layout);

  // Whatever a crashed earlier run of this state directory left behind goes first.
  const registry = new ProcessRegistry(layout.processRegistry);
  const leftovers = [...registry.killLeftovers(), ...(await stopTaggedProcesses(layout.root, 2000)).map((found) => found.commandLine)];
  if (leftovers.length > 0) log.warn({ leftovers }, 'stopped processes left by an earlier run');
  // Every start is a fresh cluster: etcd lives on tmpfs and is wiped, so old pods and volumes mean nothing.
  for (const stale of [layout.readyFile, layout.pods, layout.persistentVolumes, layout.pki, layout.kubeconfig, join(layout.root, 'host-paths'), join(layout.logs, 'pods')]) {
    rmSync(stale, { recursive: true, force: true });
  }

  let shuttingDown: Promise<void> | undefined;
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const shutdown = (reason: string, exitCode: number): Promise<void> => {
    shuttingDown ??= (async () => {
      log.info({ reason }, 'stopping the cluster');
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (error) {
          warn('cleanup step failed', error);
        }
      }
      await stopTaggedProcesses(layout.root, 2000);
      rmSync(layout.readyFile, { force: true });
      rmSync(layout.daemonFile, { force: true });
      log.info('cluster stopped');
      process.exit(exitCode);
    })();
    return shuttingDown;
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal, 0));
  if (options.exitWithParent) {
    process.stdin.on('end', () => void shutdown('parent went away (stdin closed)', 0));
    process.stdin.on('error', () => void shutdown('parent went away (stdin error)', 0));
    process.stdin.resume();
  }
  process.on('uncaughtException', (error) => {
    log.error({ err: error }, 'uncaught exception');
    void shutdown('uncaught exception', 1);
  });
  process.on('unhandledRejection', (error) => {
    log.error({ err: error }, 'unhandled rejection');
  });

  try {
    const started = Date.now();
    const binaries = await locateControlPlaneBinaries((line) => log.info(line));
    const redis = locateRedisBinaries();
    const loopbackBlock = LoopbackBlock.reserve();
    cleanups.push(() => loopbackBlock.release());
    log.info({ block: loopbackBlock.cidr }, 'reserved loopback block');

    const controlPlane = await ControlPlane.start({ layout, binaries, loopbackBlock, registry, log: (message) => log.info(message) });
    cleanups.push(() => controlPlane.stop());
    log.info({ milliseconds: Date.now() - started }, 'control plane ready');

    const networkFaults = await NetworkFaults.start({
      secondOctet: loopbackBlock.secondOctet,
      podAddress: (namespace, name) => agent.podAddress(namespace, name),
      apiServerProxy: {
        upstreamUrl: controlPlane.apiServerUrl,
        caCertificateFile: controlPlane.pki.caCertificate,
        servingCertificateFile: controlPlane.pki.apiServerProxyCertificate,
        servingKeyFile: controlPlane.pki.apiServerProxyKey,
      },
      warn,
    });
    // Cleanups run in reverse: the iptables chains go after the pods, whatever else failed.
    cleanups.push(() => networkFaults.stop());

    const agent = new NodeAgent({
      client: controlPlane.client,
      layout,
      registry,
      nodeName: NODE_NAME,
      podIpPrefix: loopbackBlock.podIpPrefix,
      firstPodIpThirdOctet: loopbackBlock.firstPodThirdOctet,
      redisPrograms: redis,
      backoff,
      warn,
      onPodFinished: (uid) => networkFaults.podFinished(uid),
    });
    cleanups.push(() => agent.stop());
    await agent.start();

    const controlApi = new ControlApi({
      listPods: () => agent.listPods(),
      chaos: (namespace, name, action, container) => agent.chaos(namespace, name, action, container),
      deletePod: (namespace, name, grace) => agent.deletePod(namespace, name, grace),
      loseVolumes: (namespace, name) => agent.loseVolumes(namespace, name),
      listServices: () => agent.listServices(),
      restartApiServer: () => controlPlane.restartApiServer(),
      compactEtcd: () => controlPlane.compactEtcd(),
      partition: (first, second) => networkFaults.partitions.partition(first, second),
      listPartitions: () => networkFaults.partitions.list(),
      healPartition: (id) => networkFaults.partitions.heal(id),
      healAllPartitions: () => networkFaults.partitions.healAll(),
      listFirewallRules: () => findClusterFirewallRules(loopbackBlock.secondOctet),
      registerController: (name) => networkFaults.controllers.register(name),
      listControllers: () => networkFaults.controllers.list(),
      getController: (name) => networkFaults.controllers.get(name),
      unregisterController: (name) => networkFaults.controllers.unregister(name),
      stallWatches: (name) => networkFaults.controllers.stallWatches(name),
      resumeWatches: (name) => networkFaults.controllers.resumeWatches(name),
    }, warn);
    const agentUrl = await controlApi.listen();
    cleanups.push(() => controlApi.close());

    const endpoints: ClusterEndpoints = {
      kubeconfig: controlPlane.kubeconfigPath,
      apiServerUrl: controlPlane.apiServerUrl,
      agentUrl,
      nodeName: NODE_NAME,
      loopbackBlock: loopbackBlock.cidr,
      daemonPid: process.pid,
      startedAt: new Date().toISOString(),
    };
    writeFileSync(`${layout.readyFile}.tmp`, JSON.stringify(endpoints, null, 2));
    // Renamed into place so readers never see half a file.
    renameSync(`${layout.readyFile}.tmp`, layout.readyFile);
    log.info({ ...endpoints, milliseconds: Date.now() - started }, 'cluster ready');
  } catch (error) {
    log.error({ err: error }, 'cluster start failed');
    await shutdown('start failed', 1);
  }
}

void main();
