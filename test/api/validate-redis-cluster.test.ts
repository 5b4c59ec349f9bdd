import { admissionCases } from '../support/admission-cases';
import { redisClusterManifest, redisClusterValidationMessages, validateRedisClusterObject } from '../../src/api';

/**
 * The offline half of the agreement test (the other half, test/e2e/synth-validation-agreement.e2e.test.ts, puts the
 * same cases to the real kube-apiserver): every fixture gets the verdict the fixture file states, with its message.
 */
const cases = admissionCases();
const verdicts: boolean[] = [];

describe('synth-time validation of every admission fixture, offline', () => {
  afterAll(() => {
    process.stderr.write(`\n[synth-validation] offline: ${cases.length} fixtures checked, ${verdicts.filter(Boolean).length} with the fixture's verdict\n`);
  });

  it.each(cases.map((admission) => [admission.id, admission] as const))('%s', (_id, admission) => {
    const messages = redisClusterValidationMessages(admission.object, { oldObject: admission.oldObject });
    verdicts.push((messages.length === 0) === (admission.verdict === 'accept'));
    if (admission.verdict === 'accept') {
      expect(messages).toEqual([]);
    } else {
      expect(messages).not.toEqual([]);
      expect(messages.join('\n')).toContain(admission.message);
    }
  });
});

describe('redisClusterValidationMessages', () => {
  const messagesFor = (spec: Record<string, unknown>) => redisClusterValidationMessages(redisClusterManifest('sessions', 'payments', spec));

  // Expected texts are what kube-apiserver v1.34 answered for the same objects (see the e2e agreement test).
  it('names the object and gives the rule message as the apiserver does for minReplicasToWrite 5 of 3 replicas', () => {
    expect(messagesFor({ replicas: 3, minReplicasToWrite: 5 })).toEqual([
      'RedisCluster payments/sessions is invalid: spec: Invalid value: "object": minReplicasToWrite must be less than replicas: the primary would refuse every write whenever one replica is down',
    ]);
  });

  it('rejects an operator-owned redis.conf key (config.port) with the CEL rule message', () => {
    expect(messagesFor({ config: { port: '6380' } })).toEqual([
      expect.stringMatching(/^RedisCluster payments\/sessions is invalid: spec\.config: Invalid value: "object": config must not set parameters redkite manages: replicaof, .*\bport\b/),
    ]);
  });

  it('words a schema bound as the apiserver does', () => {
    expect(messagesFor({ replicas: 0 })).toContain(
      'RedisCluster payments/sessions is invalid: spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1',
    );
  });

  it('reports an unknown field as strict decoding does', () => {
    expect(messagesFor({ sentinels: 3 })).toEqual(['RedisCluster payments/sessions: strict decoding error: unknown field "spec.sentinels"']);
  });

  it('names an object without a namespace by its name alone', () => {
    expect(redisClusterValidationMessages(redisClusterManifest('sessions', undefined, { replicas: 16 }))[0]).toMatch(/^RedisCluster sessions is invalid: /);
  });

  it('evaluates transition rules only when given the stored object', () => {
    const next = redisClusterManifest('sessions', 'payments', { storage: { size: '2Gi' } });
    expect(validateRedisClusterObject(next)).toEqual([]);
    expect(validateRedisClusterObject(next, { oldObject: redisClusterManifest('sessions', 'payments', { storage: { size: '1Gi' } }) })).toEqual([
      expect.objectContaining({ field: 'spec.storage.size', message: expect.stringContaining('storage.size cannot change after creation') }),
    ]);
  });
});
