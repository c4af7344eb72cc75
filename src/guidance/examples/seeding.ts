/**
 * The Mersenne Twister's seeding loop (see ./mersenne.ts) in WebAssembly. A reseed fills ≈ 400 state words one
 * after the other; the example worker runs that loop ≈ 2,000 times on Stripe, nearly always in code V8 has not
 * optimised (its optimising compiler's threads run at nice 19 and get no core while both threads compute), where it
 * took 13–15 ms of the worker's time, against ≈ 3 ms in the runs where V8 happened to optimise it early. A
 * WebAssembly function is compiled before its first call, so it is fast from the start in every thread.
 *
 * The module is assembled here from its instructions (the text format beside each line), not kept as opaque bytes.
 * Where WebAssembly is not available (`node --jitless`), or the platform is big-endian (the state is read through
 * an Int32Array over the module's little-endian memory), the JavaScript loop in ./mersenne.ts stays in use.
 */

/** Seeds words `from` … `end - 1` of `state`, each from the one before it (`from` ≥ 1). */
export interface Seeding {
  state: Int32Array;
  seed(from: number, end: number): void;
}

/** The WebAssembly seeding over a state of `words` words, or undefined where it cannot be made. */
export function wasmSeeding(words: number): Seeding | undefined {
  if (!LITTLE_ENDIAN || typeof WebAssembly !== "object") return undefined;
  try {
    module ??= new WebAssembly.Module(seedingModule());
    const { exports } = new WebAssembly.Instance(module);
    return {
      state: new Int32Array((exports["memory"] as WebAssembly.Memory).buffer, 0, words),
      seed: exports["seed"] as Seeding["seed"],
    };
  } catch {
    return undefined;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
/** Compiled once per thread. */
let module: WebAssembly.Module | undefined;

/** The multiplier of the Mersenne Twister's seeding (MT19937's `init_genrand`). */
const SEED_MULTIPLIER = 1812433253;

/** Opcodes and types of the WebAssembly binary format (core specification, section 5). */
const I32 = 0x7f;
const VOID = 0x40;
const OP = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  i32Load: 0x28,
  i32Store: 0x36,
  i32Const: 0x41,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32Xor: 0x73,
  i32Shl: 0x74,
  i32ShrU: 0x76,
} as const;
/** A 4-byte aligned access at the address on the stack (alignment as a power of two, then the offset). */
const WORD_ACCESS = [2, 0];

/**
 * `(module (memory (export "memory") 1) (func (export "seed") (param $from i32) (param $end i32) …))`: one page of
 * memory, whose first words are the state, and the seeding function, with the locals $i (2) and $x (3).
 */
function seedingModule(): Uint8Array<ArrayBuffer> {
  const [from, end, i, x] = [0, 1, 2, 3];
  const body = [
    ...[1, 2, I32], // two i32 locals: $i, $x
    ...[OP.localGet, from, OP.localSet, i], // $i = $from
    // $x = state[$i - 1]
    ...[OP.localGet, i, OP.i32Const, 1, OP.i32Sub, OP.i32Const, 2, OP.i32Shl, OP.i32Load, ...WORD_ACCESS],
    ...[OP.localSet, x],
    ...[OP.block, VOID, OP.loop, VOID],
    ...[OP.localGet, i, OP.localGet, end, OP.i32GeU, OP.brIf, 1], // while ($i < $end)
    // $x = (($x ^ ($x >>> 30)) * SEED_MULTIPLIER + $i) mod 2^32
    ...[OP.localGet, x, OP.localGet, x, OP.i32Const, 30, OP.i32ShrU, OP.i32Xor],
    ...[OP.i32Const, ...signedLeb128(SEED_MULTIPLIER), OP.i32Mul, OP.localGet, i, OP.i32Add, OP.localSet, x],
    // state[$i] = $x; $i++
    ...[OP.localGet, i, OP.i32Const, 2, OP.i32Shl, OP.localGet, x, OP.i32Store, ...WORD_ACCESS],
    ...[OP.localGet, i, OP.i32Const, 1, OP.i32Add, OP.localSet, i],
    ...[OP.br, 0, OP.end, OP.end],
    OP.end,
  ];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
    ...section(1, [1, 0x60, 2, I32, I32, 0]), // types: (func (param i32 i32))
    ...section(3, [1, 0]), // functions: one, of type 0
    ...section(5, [1, 0x00, 1]), // memories: one, at least one page
    ...section(7, [2, ...name("memory"), 0x02, 0, ...name("seed"), 0x00, 0]), // exports
    ...section(10, [1, ...unsignedLeb128(body.length), ...body]), // code
  ]);
}

function section(id: number, content: number[]): number[] {
  return [id, ...unsignedLeb128(content.length), ...content];
}

function name(text: string): number[] {
  return [text.length, ...Buffer.from(text, "ascii")];
}

function unsignedLeb128(value: number): number[] {
  const bytes: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    bytes.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return bytes;
}

/** An i32 immediate: signed LEB128, ending once the rest is the sign extension of the last byte's bit 6. */
function signedLeb128(value: number): number[] {
  const bytes: number[] = [];
  for (;;) {
    const low = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (low & 0x40) === 0) || (value === -1 && (low & 0x40) !== 0);
    bytes.push(done ? low : low | 0x80);
    if (done) return bytes;
  }
}
