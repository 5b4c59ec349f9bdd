/** Stops the cluster the global setup started (a reused cluster is left running). Its logs stay in the state dir. */
import { stopCluster } from '../cluster/cluster-launcher';
import { OWNED_STATE_DIR_VARIABLE } from './global-setup';

export default async function globalTeardown(): Promise<void> {
  const stateDir = process.env[OWNED_STATE_DIR_VARIABLE];
  if (!stateDir) return;
  const result = await stopCluster(stateDir);
  if (result.leftovers.length > 0) {
    throw new Error(`the cluster left processes behind after its daemon stopped:\n${result.leftovers.map((found) => `  ${found.pid} ${found.commandLine}`).join('\n')}`);
  }
  if (result.leftoverFirewallRules.length > 0) {
    throw new Error(`the cluster left iptables rules behind after its daemon stopped (now removed):\n${result.leftoverFirewallRules.map((rule) => `  ${rule}`).join('\n')}`);
  }
}
