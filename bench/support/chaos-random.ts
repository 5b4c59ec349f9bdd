import prand, { type RandomGenerator } from 'pure-rand';

/**
 * The seeded pseudo-random source of a chaos run (xoroshiro128+ from pure-rand): the same seed and parameters give
 * the same schedules, so `--seed` replays a run.
 */
export class ChaosRandom {
  private readonly generator: RandomGenerator;

  constructor(readonly seed: number) {
    if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
      throw new Error(`the seed must be an integer in [0, 4294967295], got ${seed}`);
    }
    this.generator = prand.xoroshiro128plus(seed);
  }

  /** A fresh seed for a run that was not given one. */
  static randomSeed(): number {
    return Math.floor(Math.random() * 0x1_0000_0000);
  }

  /** An integer in `[minimum, maximum]`. */
  integer(minimum: number, maximum: number): number {
    return prand.unsafeUniformIntDistribution(minimum, maximum, this.generator);
  }

  /** A number in `[0, 1)` with a millionth's resolution (enough to pick among a handful of pods). */
  fraction(): number {
    return this.integer(0, 999_999) / 1_000_000;
  }

  pick<T>(choices: readonly T[]): T {
    if (choices.length === 0) throw new Error('nothing to pick from');
    return choices[this.integer(0, choices.length - 1)]!;
  }
}
