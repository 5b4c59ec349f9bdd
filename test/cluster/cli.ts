/**
 * `npm run cluster:up` / `npm run cluster:down`: a real local Kubernetes (etcd, kube-apiserver,
 * kube-controller-manager and a node agent running Redis pods as host processes) without Docker.
 *
 *   tsx test/cluster/cli.ts up [--state-dir .cluster]     starts it in the background, prints KUBECONFIG=<path>
 *   tsx test/cluster/cli.ts down [--state-dir .cluster]   stops it; no process is left behind
 *   tsx test/cluster/cli.ts status [--state-dir .cluster] prints the endpoints of a running cluster
 */
import { Command } from 'commander';
import { launchCluster, stopCluster } from './cluster-launcher';
import { liveDaemon, readClusterEndpoints } from './daemon-record';
import { DEFAULT_STATE_DIR, StateDirLayout } from './state-dir';

const program = new Command().name('cluster').description('local Kubernetes for redkite, without containers');

program
  .command('up')
  .description('start the cluster in the background and print KUBECONFIG=<path> once it is ready')
  .option('--state-dir <dir>', 'state directory', DEFAULT_STATE_DIR)
  .option('--timeout-seconds <seconds>', 'how long to wait for readiness (after binaries are built)', '180')
  .action(async (options: { stateDir: string; timeoutSeconds: string }) => {
    const started = Date.now();
    const endpoints = await launchCluster({
      stateDir: options.stateDir,
      readyTimeoutMilliseconds: Number(options.timeoutSeconds) * 1000,
      onProgress: (line) => console.error(`[cluster] ${line}`),
    });
    console.error(`[cluster] ready in ${((Date.now() - started) / 1000).toFixed(1)} s; node agent control API: ${endpoints.agentUrl}`);
    console.error(`[cluster] try: kubectl --kubeconfig ${endpoints.kubeconfig} get nodes`);
    console.log(`KUBECONFIG=${endpoints.kubeconfig}`);
  });

program
  .command('down')
  .description('stop the cluster and every process it started')
  .option('--state-dir <dir>', 'state directory', DEFAULT_STATE_DIR)
  .action(async (options: { stateDir: string }) => {
    const result = await stopCluster(options.stateDir);
    if (result.leftovers.length > 0) {
      console.error(`[cluster] killed ${result.leftovers.length} leftover process(es):\n${result.leftovers.map((found) => `  ${found.pid} ${found.commandLine}`).join('\n')}`);
    }
    if (result.leftoverFirewallRules.length > 0) {
      console.error(`[cluster] removed ${result.leftoverFirewallRules.length} leftover iptables rule(s):\n${result.leftoverFirewallRules.map((rule) => `  ${rule}`).join('\n')}`);
    }
    console.error(result.daemonWasRunning ? '[cluster] stopped' : '[cluster] was not running');
  });

program
  .command('status')
  .description('print the endpoints of the running cluster')
  .option('--state-dir <dir>', 'state directory', DEFAULT_STATE_DIR)
  .action((options: { stateDir: string }) => {
    const layout = new StateDirLayout(options.stateDir);
    const endpoints = readClusterEndpoints(layout);
    if (!liveDaemon(layout) || !endpoints) {
      console.error('[cluster] not running');
      process.exitCode = 1;
      return;
    }
    console.log(JSON.stringify(endpoints, null, 2));
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`[cluster] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
