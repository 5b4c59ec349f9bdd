import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';

/** Which layer of admission rejects an invalid spec. */
export type RejectedBy = 'schema' | 'unknown-field' | 'metadata' | 'cel';

export interface ValidSpecFixture {
  readonly name: string;
  readonly spec: Record<string, unknown>;
}
export interface InvalidSpecFixture extends ValidSpecFixture {
  readonly rejectedBy: RejectedBy;
  readonly message: string;
  readonly metadataName?: string;
}
export interface UpdateFixture {
  readonly name: string;
  readonly old: Record<string, unknown>;
  readonly new: Record<string, unknown>;
  readonly message?: string;
}
export interface SpecFixtures {
  readonly valid: ValidSpecFixture[];
  readonly invalid: InvalidSpecFixture[];
  readonly validUpdates: UpdateFixture[];
  readonly invalidUpdates: UpdateFixture[];
}

/** The admission fixtures shared by the offline schema tests and the real apiserver tests. */
export function loadSpecFixtures(): SpecFixtures {
  const file = path.join(__dirname, '..', 'fixtures', 'redis-cluster-specs.yaml');
  return parse(fs.readFileSync(file, 'utf8')) as SpecFixtures;
}

/** A RedisCluster object for a fixture, with a DNS-safe name derived from the fixture's. */
export function redisClusterObject(fixtureName: string, spec: Record<string, unknown>, metadataName?: string) {
  return {
    apiVersion: 'redis.redkite.io/v1alpha1',
    kind: 'RedisCluster',
    metadata: { name: metadataName ?? fixtureName.slice(0, 40).replace(/-+$/, '') },
    spec,
  };
}
