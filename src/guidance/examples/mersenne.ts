/**
 * The 53-bit Mersenne Twister randomizer @faker-js/faker uses by default, with
 * the same output for the same seed, but reseeding in place: faker's own
 * builds a fresh 624-entry array with `Array.from` at every `seed()`, and the
 * realistic-value picker reseeds once per argument (≈ 20 µs each, tens of
 * thousands of times on Microsoft Graph). The state lives in an Int32Array:
 * every operation on it is a 32-bit one, so wrapping at store time changes
 * no result.
 */
import { wasmSeeding, type Seeding } from "./seeding.js";

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;
/**
 * Words twisted at a time after a reseed. A picked value mostly draws 4 words (two words of a phrase), so 8 covers
 * nearly every reseed, which then seeds only up to word 8 + M of 624 (with 32 it was 32 + M).
 */
const DRAWN_AHEAD = 8;

export interface Randomizer {
  next(): number;
  seed(seed: number | number[]): void;
}

/**
 * Reseeds after which a randomizer seeds in WebAssembly (./seeding.ts). Making the module costs ≈ 0.5 ms, about what
 * 64 reseeds cost in JavaScript V8 has not optimised, so a small run (Petstore) never makes it.
 */
const WASM_AFTER_RESEEDS = 64;

/** `wasmAfter`: reseeds after which the seeding moves to WebAssembly (tests choose 0, or never). */
export function createMersenne53(seed: number, { wasmAfter = WASM_AFTER_RESEEDS } = {}): Randomizer {
  let state: Int32Array = new Int32Array(N);
  let seeding: Seeding | undefined;
  let reseeds = 0;
  let index = 0;
  // After a reseed the state is filled and twisted only as far as draws reach (a picked value mostly takes
  // 4 words of 624): `seeded` words hold the seeding values, `ready` words are twisted. Twisting word i
  // reads the seeding values of words i + 1 and i + M, so in order, on demand, it gives the very same words.
  let seeded = N;
  let ready = N;
  const reseed = (value: number): void => {
    // A reseed starts the state afresh from its first word, so the state can move into the module's memory here.
    if (reseeds++ === wasmAfter) {
      seeding = wasmSeeding(N);
      if (seeding) state = seeding.state;
    }
    state[0] = value;
    seeded = 1;
    ready = 0;
    index = 0;
  };
  // A reseed runs ≈ 400 seeding steps (and 8 twisting ones), mostly in code V8 has not optimised (the example
  // worker's), hence WebAssembly once a run reseeds often. In JavaScript each step reads the word it wrote last from
  // a local and wraps with `| 0` (a store into the Int32Array would wrap the same way): about half the bytecodes.
  const seedTo = (end: number): void => {
    if (end <= seeded) return;
    if (seeding) {
      seeding.seed(seeded, end);
      seeded = end;
      return;
    }
    const s = state;
    const imul = Math.imul;
    let prev = s[seeded - 1]!;
    for (let i = seeded; i < end; i++) {
      prev = (imul(1812433253, prev ^ (prev >>> 30)) + i) | 0;
      s[i] = prev;
    }
    seeded = end;
  };
  const twistTo = (end: number): void => {
    seedTo(Math.min(N, end + M));
    // Words whose i + 1 and i + M need no wrapping, in one loop carrying word i + 1 over; the rest one by one.
    const s = state;
    const plain = Math.min(end, N - M);
    let i = ready;
    let next = s[i]!;
    for (; i < plain; i++) {
      const y = (next & UPPER) | ((next = s[i + 1]!) & LOWER);
      s[i] = s[i + M]! ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A);
    }
    for (; i < end; i++) twistWord(state, i);
    ready = end;
  };
  const nextU32 = (): number => {
    if (index >= ready) twistTo(Math.min(N, index + DRAWN_AHEAD));
    let y = state[index]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    if (++index >= N) {
      twist(state);
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

/** Twists the whole state (every word ready): the next 624 words. */
function twist(s: Int32Array): void {
  for (let i = 0; i < N; i++) twistWord(s, i);
}

/** Word i of the next state: from words i and i + 1 (word 0's new value for the last) and i + M (wrapping to new words). */
function twistWord(s: Int32Array, i: number): void {
  const y = (s[i]! & UPPER) + (s[i + 1 < N ? i + 1 : 0]! & LOWER);
  s[i] = s[i + M < N ? i + M : i + M - N]! ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A);
}
