import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { k8s, loadKubeConfig, useTestNamespace, waitFor } from './support';
import { distObjects, installCrd, installOperatorRelease } from './controller-support/release';
import { RedisClusterApi } from './controller-support/redis-cluster-api';
import { buildOperatorImage, type BuiltImage } from '../install/support/operator-image';
import { OperatorContainer, runOperatorImageOnce } from '../install/support/operator-container';

// A cold build (base image from Debian packages, npm ci inside the build) takes a few minutes on 2 cores.
jest.setTimeout(15 * 60_000);

const config = loadKubeConfig();
const namespace = useTestNamespace('operator-image');
const clusters = new RedisClusterApi(config, () => namespace.name, () => container?.tail() ?? '');
const packageVersion = (JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
let image: BuiltImage;
let container: OperatorContainer | undefined;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Manifest = any;

/** The operator container's arguments in dist/, with its listeners moved to loopback ports of the host network. */
function deploymentArguments(): string[] {
  const deployment = distObjects('redkite-operator.k8s.yaml').find((object) => object.kind === 'Deployment') as Manifest;
  const args: string[] = deployment.spec.template.spec.containers[0].args;
  return args.map((arg) => (arg.startsWith('--metrics-bind-address=') || arg.startsWith('--health-probe-bind-address=') ? `${arg.split('=')[0]}=127.0.0.1:0` : arg));
}

async function podEnvironment() {
  const core = config.makeApiClient(k8s.CoreV1Api);
  const request = await core.createNamespacedServiceAccountToken({
    name: 'redkite-operator',
    namespace: 'redkite-system',
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = config.getCurrentCluster()!;
  const server = new URL(cluster.server);
  const caCertificate = cluster.caData ? Buffer.from(cluster.caData, 'base64').toString('utf8') : fs.readFileSync(cluster.caFile!, 'utf8');
  return { token: request.status!.token, caCertificate, namespace: 'redkite-system', apiserverHost: server.hostname, apiserverPort: server.port, podName: `redkite-operator-${namespace.name}` };
}

beforeAll(async () => {
  image = await buildOperatorImage();
  process.stderr.write(`[operator-image] ${image.reference}: ${(image.sizeBytes / 1e6).toFixed(0)} MB uncompressed\n`);
  await installCrd(config);
  await installOperatorRelease(config);
  container = new OperatorContainer(image.reference, await podEnvironment());
  // Watch only this test's namespace, so the container never touches another test's clusters.
  container.start([...deploymentArguments(), `--namespace=${namespace.name}`]);
});

afterAll(async () => {
  await container?.remove();
});

describe('the operator image', () => {
  it('is the reference dist/ deploys, labelled with the package version, running as uid 65532 under tini', () => {
    const deployment = distObjects('redkite-operator.k8s.yaml').find((object) => object.kind === 'Deployment') as Manifest;
    expect(image.reference).toBe(deployment.spec.template.spec.containers[0].image);
    const [inspected] = JSON.parse(execFileSync('podman', ['image', 'inspect', image.reference], { encoding: 'utf8' })) as Array<{ Config: { User: string; Entrypoint: string[]; Labels: Record<string, string> } }>;
    expect(inspected.Config.User).toBe('65532:65532');
    expect(inspected.Config.Entrypoint.slice(0, 2)).toEqual(['/usr/bin/tini', '--']);
    expect(inspected.Config.Labels['org.opencontainers.image.version']).toBe(packageVersion);
  });

  it('runs the compiled CLI: redkite --version prints the package version', async () => {
    expect((await runOperatorImageOnce(image.reference, ['--version'])).trim()).toBe(packageVersion);
  });

  it('reconciles a RedisCluster with the in-cluster config of the release ServiceAccount, read-only and without /tmp', async () => {
    await clusters.create('cache', { replicas: 1 });
    const apps = config.makeApiClient(k8s.AppsV1Api);
    await waitFor(() => apps.readNamespacedStatefulSet({ namespace: namespace.name, name: 'cache' }), {
      description: `StatefulSet cache created by the containerized operator (log:\n${container!.tail()})`,
      timeoutMs: 120_000,
    });
    const status = await clusters.waitReady('cache', 'RedisCluster cache Ready', { generation: 1 });
    expect(status).toMatchObject({ observedGeneration: 1, phase: 'Ready', primary: 'cache-0' });
  });

  it('stops cleanly on SIGTERM: tini forwards it, the controller shuts down and exits 0', async () => {
    const exitCode = await container!.terminate(30_000);
    expect([exitCode, container!.tail()]).toEqual([0, expect.stringContaining('signal received; stopping gracefully')]);
  });
});
