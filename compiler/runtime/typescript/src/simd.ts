// Dot products of byte vectors sixteen numbers at a time: a WebAssembly function of SIMD
// instructions, written here byte by byte (no build step, no file beside the JavaScript). The
// built-in model's vectors are whole numbers from -127 to 127 (docs/routing.md, "Meaning"):
// every product and sum is an exact whole number, so the dot products are the bits of Rust's
// sum in order, eight times sooner than a JavaScript loop on the reference workload.
//
// The function, as WebAssembly text:
//
//   (func (export "dots") (param $q i32) (param $data i32) (param $count i32) (param $dims i32)
//                         (param $out i32) (local $v i32) (local $i i32) (local $acc v128)
//                         (local $a v128) (local $b v128)
//     block $done loop $vectors
//       (br_if $done (i32.ge_u $v $count))
//       $acc := 0; $i := 0
//       loop $numbers                           ;; sixteen bytes of the query and the vector
//         $a := (v128.load (i32.add $q $i)); $b := (v128.load (i32.add $data $i))
//         $acc := $acc + dot(extend_low $a, extend_low $b) + dot(extend_high $a, extend_high $b)
//         (br_if $numbers (i32.lt_u (local.tee $i (i32.add $i 16)) $dims))
//       end
//       (i32.store (i32.add $out (i32.shl $v 2)) (sum of $acc's four lanes))
//       $data := $data + $dims; $v := $v + 1; br $vectors
//     end end)
//
// in a module that imports its memory as `m.memory`.

/** The dot products of a query and vectors of bytes, in a memory of their own. */
export interface ByteDots {
  /** Sets the query (`dims` whole numbers from -127 to 127) and gives each vector's dot product. */
  dots(query: ArrayLike<number>): Int32Array;
}

const leb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const section = (id: number, bytes: number[]) => [id, ...leb(bytes.length), ...bytes];
const name = (s: string) => [s.length, ...Buffer.from(s)];

function moduleBytes(): Uint8Array<ArrayBuffer> {
  const [Q, DATA, COUNT, DIMS, OUT, V, I, ACC, A, B] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  const get = (l: number) => [0x20, l];
  const set = (l: number) => [0x21, l];
  const simd = (op: number) => [0xfd, ...leb(op)];
  const load = [...simd(0x00), 0, 0];
  const add = 0x6a;
  // i16x8.extend_{low,high}_i8x16_s of both, i32x4.dot_i16x8_s, i32x4.add.
  const half = (extend: number) => [...get(A), ...simd(extend), ...get(B), ...simd(extend), ...simd(0xba), ...simd(0xae)];
  const lane = (k: number) => [...get(ACC), ...simd(0x1b), k];
  const code = [
    0x02, 0x40, 0x03, 0x40,
    ...get(V), ...get(COUNT), 0x4f, 0x0d, 1,
    ...simd(0x0c), ...new Array<number>(16).fill(0), ...set(ACC),
    0x41, 0, ...set(I),
    0x03, 0x40,
    ...get(Q), ...get(I), add, ...load, ...set(A),
    ...get(DATA), ...get(I), add, ...load, ...set(B),
    ...get(ACC), ...half(0x87), ...half(0x88), ...set(ACC),
    ...get(I), 0x41, 16, add, 0x22, I, ...get(DIMS), 0x49, 0x0d, 0,
    0x0b,
    ...get(OUT), ...get(V), 0x41, 2, 0x74, add,
    ...lane(0), ...lane(1), add, ...lane(2), add, ...lane(3), add,
    0x36, 2, 0,
    ...get(DATA), ...get(DIMS), add, ...set(DATA),
    ...get(V), 0x41, 1, add, ...set(V),
    0x0c, 0,
    0x0b, 0x0b, 0x0b,
  ];
  const body = [2, 2, 0x7f, 3, 0x7b, ...code];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0,
    ...section(1, [1, 0x60, 5, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...name("m"), ...name("memory"), 2, 0, 0]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("dots"), 0, 0]),
    ...section(10, [1, ...leb(body.length), ...body]),
  ]);
}

/** Compiled once; null where this engine has no WebAssembly SIMD (the callers sum in JavaScript). */
let compiled: WebAssembly.Module | null | undefined;

/**
 * The vectors `data` (`count` of `dims` bytes each, `dims` a multiple of 16) copied into a memory
 * of their own with room for a query and the results; undefined without WebAssembly SIMD.
 */
export function byteDots(data: Int8Array, count: number, dims: number): ByteDots | undefined {
  if (dims === 0 || dims % 16 !== 0 || data.length !== count * dims) return undefined;
  if (compiled === undefined) {
    const bytes = moduleBytes();
    compiled = typeof WebAssembly === "object" && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
  }
  if (compiled === null) return undefined;
  const out = dims + data.length;
  const memory = new WebAssembly.Memory({ initial: Math.ceil((out + 4 * count) / 65536) });
  const exports = new WebAssembly.Instance(compiled, { m: { memory } }).exports as { dots: (...args: number[]) => void };
  new Int8Array(memory.buffer, dims, data.length).set(data);
  const query = new Int8Array(memory.buffer, 0, dims);
  const results = new Int32Array(memory.buffer, out, count);
  return {
    dots(q: ArrayLike<number>): Int32Array {
      query.set(q);
      exports.dots(0, dims, count, dims, out);
      return results;
    },
  };
}
