import Redis from 'ioredis';
import { AcknowledgedWriter, verifyAcknowledgedKeys } from '../support/acknowledged-writer';
import { allocateLoopbackHosts } from '../support/loopback-hosts';
import { RedisServerProcess, startRedisServers } from '../support/redis-process';
import { waitUntil } from '../support/wait-until';

jest.setTimeout(30_000);

let primary: RedisServerProcess;
let replica: RedisServerProcess;
const clients: Redis[] = [];

beforeAll(async () => {
  const [primaryHost, replicaHost] = await allocateLoopbackHosts(2);
  [primary] = await startRedisServers([primaryHost!]);
  [replica] = await startRedisServers([replicaHost!], { replicaOf: { host: primaryHost! } });
});

afterAll(async () => {
  clients.forEach((client) => client.disconnect());
  await Promise.all([primary?.stop(), replica?.stop()]);
});

function clientOf(server: RedisServerProcess): Redis {
  const client = new Redis({ host: server.host, port: server.port, password: server.password, maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

describe('AcknowledgedWriter', () => {
  it('counts writes acknowledged by a replica, and every one of them reads back from the replica', async () => {
    const writer = AcknowledgedWriter.start({ client: clientOf(primary), keyPrefix: 'acked' });
    await waitUntil('50 writes are acknowledged', () => writer.acknowledged.length >= 50);
    await writer.stop();
    expect(await verifyAcknowledgedKeys(clientOf(replica), writer.acknowledged)).toEqual([]);
    expect(writer.errors).toEqual([]);
  });

  it('does not count a write no replica acknowledged', async () => {
    await clientOf(replica).replicaof('NO', 'ONE');
    try {
      const writer = AcknowledgedWriter.start({ client: clientOf(primary), keyPrefix: 'alone', waitTimeoutMilliseconds: 20 });
      await waitUntil('3 writes went unacknowledged', () => writer.unacknowledgedWrites >= 3);
      await writer.stop();
      expect(writer.acknowledged).toEqual([]);
    } finally {
      await clientOf(replica).replicaof(primary.host, primary.port);
    }
  });

  it('reports acknowledged keys missing from another server as lost', async () => {
    const writer = AcknowledgedWriter.start({ client: clientOf(primary), keyPrefix: 'lost' });
    await waitUntil('5 writes are acknowledged', () => writer.acknowledged.length >= 5);
    await writer.stop();
    await clientOf(primary).del(writer.acknowledged[0]!.key);
    const lost = await verifyAcknowledgedKeys(clientOf(primary), writer.acknowledged);
    expect(lost.map((write) => write.key)).toEqual([writer.acknowledged[0]!.key]);
  });

  it('records errors while the primary is down and the first acknowledged write after them', async () => {
    const writer = AcknowledgedWriter.start({ client: clientOf(primary), keyPrefix: 'outage' });
    await waitUntil('a write is acknowledged', () => writer.acknowledged.length >= 1);
    await primary.restart();
    await clientOf(replica).replicaof(primary.host, primary.port);
    const recovered = await waitUntil('a write after the outage is acknowledged', () => writer.firstAcknowledgedAfterLastErrorAt);
    await writer.stop();
    expect(writer.lastErrorAt).toBeLessThan(recovered);
  });
});
