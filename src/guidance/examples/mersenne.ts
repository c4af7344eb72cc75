/**
 * The 53-bit Mersenne Twister randomizer @faker-js/faker uses by default, with
 * the same output for the same seed, but reseeding in place: faker's own
 * builds a fresh 624-entry array with `Array.from` at every `seed()`, and the
 * realistic-value picker reseeds once per argument (≈ 20 µs each, tens of
 * thousands of times on Microsoft Graph). The state lives in 32-bit words:
 * every operation on it is a 32-bit one, so wrapping at store time changes
 * no result.
 *
 * The two loops over the state (seeding and twisting) run in a tiny
 * WebAssembly module when one can be made (./mersenne-words.ts): a reseed
 * seeds ≈ 430 words one after the other, and in the example worker, whose
 * code V8 rarely gets to optimise (its compiler threads run at the lowest
 * priority while both cores are busy), those loops ran unoptimised at
 * ≈ 60 ns a word — ≈ 50 ms of a Stripe run. WebAssembly is compiled before
 * it runs, whatever the tier of the JavaScript around it.
 */
import { createWords, type Words } from "./mersenne-words.js";

const N = 624;
const M = 397;

export interface Randomizer {
  next(): number;
  seed(seed: number | number[]): void;
}

/** `words` may be given to test both implementations of the state's loops. */
export function createMersenne53(seed: number, words: Words = createWords()): Randomizer {
  const { state } = words;
  let index = 0;
  // After a reseed the state is filled and twisted only as far as draws reach (a picked value takes a few
  // dozen words of 624): `seeded` words hold the seeding values, `ready` words are twisted. Twisting word i
  // reads the seeding values of words i + 1 and i + M, so in order, on demand, it gives the very same words.
  let seeded = N;
  let ready = N;
  const reseed = (value: number): void => {
    state[0] = value;
    seeded = 1;
    ready = 0;
    index = 0;
  };
  const twistTo = (end: number): void => {
    const seedEnd = Math.min(N, end + M);
    if (seedEnd > seeded) {
      words.seed(seeded, seedEnd);
      seeded = seedEnd;
    }
    words.twist(ready, end);
    ready = end;
  };
  const nextU32 = (): number => {
    if (index >= ready) twistTo(Math.min(N, index + 32));
    let y = state[index]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    if (++index >= N) {
      words.twist(0, N);
      index = 0;
    }
    return y >>> 0;
  };
  reseed(seed);
  const randomizer: Randomizer = {
    next: () => ((nextU32() >>> 5) * 67108864 + (nextU32() >>> 6)) * 2 ** -53,
    seed: (value) => {
      // faker seeds from an array with another routine; this module only ever passes a number.
      if (typeof value !== "number") throw new TypeError("createMersenne53: seed with a number");
      reseed(value);
    },
  };
  made.add(randomizer);
  return randomizer;
}

/** Whether a randomizer came from `createMersenne53` (tests check it is the one in use). */
export function isMersenne53(randomizer: unknown): boolean {
  return typeof randomizer === "object" && randomizer !== null && made.has(randomizer);
}
const made = new WeakSet<object>();
