/**
 * The Mersenne Twister's two loops over its 624-word state (see ./mersenne.ts):
 * seeding words one after the other, and twisting them. Two implementations
 * with the same words: a WebAssembly module (compiled before it runs, so fast
 * from the first call, even in a thread whose JavaScript V8 has not optimised)
 * and plain JavaScript where WebAssembly is not available (`node --jitless`)
 * or the platform is big-endian (the state is read through an Int32Array over
 * the module's little-endian memory). test/guidance/realistic.test.ts holds
 * both to faker's own randomizer.
 */
const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;

export interface Words {
  /** The 624 words, as signed 32-bit integers. */
  state: Int32Array;
  /** Seeds words `from` … `end - 1`, each from the one before it (`from` ≥ 1). */
  seed(from: number, end: number): void;
  /** Twists words `from` … `end - 1`, in order (later words read the new values of earlier ones). */
  twist(from: number, end: number): void;
}

/** The WebAssembly implementation when it can be made, else the JavaScript one. */
export function createWords(): Words {
  return wasmWords() ?? jsWords();
}

/**
 * The module, in the text format (assembled by hand; each export takes `from`, `end`):
 *
 *   (module
 *     (memory (export "memory") 1)
 *     (func (export "seed") (param $from i32) (param $end i32) (local $i i32) (local $x i32)
 *       (local.set $i (local.get $from))
 *       (local.set $x (i32.load (i32.shl (i32.sub (local.get $i) (i32.const 1)) (i32.const 2))))
 *       (block (loop
 *         (br_if 1 (i32.ge_u (local.get $i) (local.get $end)))
 *         (local.set $x (i32.add (i32.mul (i32.xor (local.get $x) (i32.shr_u (local.get $x) (i32.const 30)))
 *                                         (i32.const 1812433253))
 *                                (local.get $i)))
 *         (i32.store (i32.shl (local.get $i) (i32.const 2)) (local.get $x))
 *         (local.set $i (i32.add (local.get $i) (i32.const 1)))
 *         (br 0))))
 *     (func (export "twist") (param $from i32) (param $end i32) (local $i i32) (local $y i32) (local $j i32)
 *       (local.set $i (local.get $from))
 *       (block (loop
 *         (br_if 1 (i32.ge_u (local.get $i) (local.get $end)))
 *         ;; j = i + 1 < N ? i + 1 : 0; y = (s[i] & UPPER) | (s[j] & LOWER)
 *         (local.set $j (select (local.tee $j (i32.add (local.get $i) (i32.const 1))) (i32.const 0)
 *                               (i32.lt_u (local.get $j) (i32.const 624))))
 *         (local.set $y (i32.or (i32.and (i32.load (i32.shl (local.get $i) (i32.const 2))) (i32.const 0x80000000))
 *                               (i32.and (i32.load (i32.shl (local.get $j) (i32.const 2))) (i32.const 0x7fffffff))))
 *         ;; j = i + M < N ? i + M : i + M - N; s[i] = s[j] ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A)
 *         (local.set $j (select (local.tee $j (i32.add (local.get $i) (i32.const 397)))
 *                               (i32.sub (local.get $j) (i32.const 624))
 *                               (i32.lt_u (local.get $j) (i32.const 624))))
 *         (i32.store (i32.shl (local.get $i) (i32.const 2))
 *           (i32.xor (i32.xor (i32.load (i32.shl (local.get $j) (i32.const 2))) (i32.shr_u (local.get $y) (i32.const 1)))
 *                    (i32.and (i32.sub (i32.const 0) (i32.and (local.get $y) (i32.const 1))) (i32.const 0x9908b0df))))
 *         (local.set $i (i32.add (local.get $i) (i32.const 1)))
 *         (br 0)))))
 */
const MODULE_BASE64 =
  "AGFzbQEAAAABBgFgAn9/AAMDAgAABQMBAAEHGQMGbWVtb3J5AgAEc2VlZAAABXR3aXN0AAEK2wECSQECfyAAIQIgAkEBa0ECdCgCACEDAkADQCAC" +
  "IAFPDQEgAyADQR52c0Hlkp7gBmwgAmohAyACQQJ0IAM2AgAgAkEBaiECDAALCwuOAQEDfyAAIQICQANAIAIgAU8NASACQQFqIgRBACAEQfAESRsh" +
  "BCACQQJ0KAIAQYCAgIB4cSAEQQJ0KAIAQf////8HcXIhAyACQY0DaiIEIARB8ARrIARB8ARJGyEEIAJBAnQgBEECdCgCACADQQF2c0EAIANBAXFr" +
  "Qd/hosh5cXM2AgAgAkEBaiECDAALCws=";

/** Compiled once per thread, at the first randomizer made. */
let module: WebAssembly.Module | undefined;

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function wasmWords(): Words | undefined {
  if (!LITTLE_ENDIAN || typeof WebAssembly !== "object") return undefined;
  try {
    module ??= new WebAssembly.Module(Buffer.from(MODULE_BASE64, "base64"));
    const { exports } = new WebAssembly.Instance(module);
    const loop = (name: string) => exports[name] as (from: number, end: number) => void;
    return {
      state: new Int32Array((exports["memory"] as WebAssembly.Memory).buffer, 0, N),
      seed: loop("seed"),
      twist: loop("twist"),
    };
  } catch {
    return undefined;
  }
}

export function jsWords(): Words {
  const state = new Int32Array(N);
  return {
    state,
    seed(from, end) {
      for (let i = from; i < end; i++) {
        const prev = state[i - 1]! ^ (state[i - 1]! >>> 30);
        state[i] = Math.trunc(Math.imul(1812433253, prev) + i);
      }
    },
    twist(from, end) {
      for (let i = from; i < end; i++) {
        const y = (state[i]! & UPPER) + (state[i + 1 < N ? i + 1 : 0]! & LOWER);
        state[i] = state[i + M < N ? i + M : i + M - N]! ^ (y >>> 1) ^ (-(y & 1) & MATRIX_A);
      }
    },
  };
}
