import { IValidation } from 'constructs';

/**
 * A construct validation that computes its errors once per synthesis. cdk8s's own `App.synth()` validates the whole
 * App once per chart (node_modules/cdk8s/lib/app.js, `App._synthChart`), so an App of N charts would render and check
 * each RedisCluster N + 1 times; rendering alone (`toJson()`) costs about 0.1 ms. Synthesis is synchronous, so the
 * result is kept until the current task ends (a microtask clears it): every check of one `synth()` call shares it,
 * and a later synth, after changes to the construct, computes it afresh.
 */
export function validationOncePerSynth(computeErrors: () => string[]): IValidation {
  let current: string[] | undefined;
  return {
    validate: () => {
      if (!current) {
        current = computeErrors();
        queueMicrotask(() => {
          current = undefined;
        });
      }
      return [...current];
    },
  };
}
