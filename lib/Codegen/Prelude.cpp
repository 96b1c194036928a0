//===- Prelude.cpp - Helpers every generated kernel uses ------------------===//
//
// The prelude is prepended to every generated kernel. It includes no CUDA
// header (NVRTC spends most of its compile time on headers); it defines the
// few conversions and operations whose semantics must match the reference
// kernels (lib/Interpreter/) exactly, so that a kernel computes
// what the interpreter computes. The same source also compiles for the host
// (FUSEC_HOST, with fusec/Runtime/Host/HostCuda.h), where the bit-level helpers
// come from fusec/Support/Float16.h: that is how generated kernels are
// tested without a GPU. The CPU forms of the kernels (FUSEC_CPU,
// CpuEmitter.h) use the same helpers in a translation unit that includes
// nothing of fusec's: Float16.h's text precedes the prelude there.
//
//===----------------------------------------------------------------------===//

#include "fusec/Codegen/CpuEmitter.h"
#include "fusec/Codegen/CudaEmitter.h"

const char *fusec::cudaPrelude() {
  return R"cuda(// fusec kernel prelude
#ifdef FUSEC_HOST
#include <cmath>
#include <cstring>
#include "fusec/Runtime/Host/HostCuda.h"
#include "fusec/Support/Float16.h"
#endif
#ifdef FUSEC_CPU
#define __device__ static
#define __forceinline__ inline __attribute__((always_inline))
#endif

typedef unsigned char fusec_u8;
typedef unsigned short fusec_u16;
typedef unsigned int fusec_u32;
typedef unsigned long long fusec_u64;
typedef int fusec_i32;
typedef long long fusec_i64;

#define FUSEC_FN __device__ __forceinline__

// Bit casts.
#if defined(FUSEC_HOST) || defined(FUSEC_CPU)
FUSEC_FN fusec_u32 fusec_f2u(float f) { fusec_u32 u; std::memcpy(&u, &f, 4); return u; }
FUSEC_FN float fusec_u2f(fusec_u32 u) { float f; std::memcpy(&f, &u, 4); return f; }
FUSEC_FN int fusec_clzll(fusec_u64 v) { return v ? __builtin_clzll(v) : 64; }
#else
FUSEC_FN fusec_u32 fusec_f2u(float f) { return __float_as_uint(f); }
FUSEC_FN float fusec_u2f(fusec_u32 u) { return __uint_as_float(u); }
FUSEC_FN int fusec_clzll(fusec_u64 v) { return __clzll((long long)v); }
#endif

// float <-> binary16 / bfloat16, round to nearest even.
#if defined(FUSEC_HOST) || defined(FUSEC_CPU)
FUSEC_FN float fusec_h2f(fusec_u16 h) { return fusec::halfToFloat(h); }
FUSEC_FN fusec_u16 fusec_f2h(float f) { return fusec::floatToHalf(f); }
FUSEC_FN float fusec_bf2f(fusec_u16 b) { return fusec::bf16ToFloat(b); }
FUSEC_FN fusec_u16 fusec_f2bf(float f) { return fusec::floatToBF16(f); }
FUSEC_FN float fusec_d2f_rto(double d) { return fusec::roundToOddFloat(d); }
#else
FUSEC_FN float fusec_h2f(fusec_u16 h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f;
}
FUSEC_FN fusec_u16 fusec_f2h(float f) {
  fusec_u16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
FUSEC_FN float fusec_bf2f(fusec_u16 b) { return fusec_u2f((fusec_u32)b << 16); }
FUSEC_FN fusec_u16 fusec_f2bf(float f) {
  fusec_u16 h; asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h;
}
// double -> float with round to odd: a second rounding to f16/bf16 is then a
// single correct rounding of the double.
FUSEC_FN float fusec_d2f_rto(double d) {
  float f = __double2float_rz(d);
  if ((double)f != d && d == d)
    f = fusec_u2f(fusec_f2u(f) | 1u);
  return f;
}
#endif
FUSEC_FN float fusec_round_f16(float f) { return fusec_h2f(fusec_f2h(f)); }
FUSEC_FN float fusec_round_bf16(float f) { return fusec_bf2f(fusec_f2bf(f)); }

// Integer -> float rounded to odd (exact below 2^24), for a correctly
// rounded second conversion to f16/bf16.
FUSEC_FN float fusec_i64_to_f32_rto(fusec_i64 v) {
  fusec_u64 a = v < 0 ? 0ull - (fusec_u64)v : (fusec_u64)v;
  if (a < (1ull << 24))
    return (float)v;
  int drop = 64 - fusec_clzll(a) - 24;
  fusec_u64 kept = a >> drop;
  if (a & ((1ull << drop) - 1))
    kept |= 1;
  float f = ldexpf((float)kept, drop);
  return v < 0 ? -f : f;
}

// IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0.
// Selects, not branches, so that a CPU form's loop over them vectorizes:
// equal operands (+0 and -0) give +0 for max (the sign bits and-ed) and -0
// for min (or-ed); a NaN operand gives NaN.
FUSEC_FN float fusec_maxf(float a, float b) {
  float r = a > b ? a : b;
  r = a == b ? fusec_u2f(fusec_f2u(a) & fusec_f2u(b)) : r;
  return ((a != a) | (b != b)) ? a + b : r;
}
FUSEC_FN float fusec_minf(float a, float b) {
  float r = a < b ? a : b;
  r = a == b ? fusec_u2f(fusec_f2u(a) | fusec_f2u(b)) : r;
  return ((a != a) | (b != b)) ? a + b : r;
}

// Two's complement wrap-around arithmetic.
FUSEC_FN fusec_i32 fusec_add32(fusec_i32 a, fusec_i32 b) { return (fusec_i32)((fusec_u32)a + (fusec_u32)b); }
FUSEC_FN fusec_i32 fusec_sub32(fusec_i32 a, fusec_i32 b) { return (fusec_i32)((fusec_u32)a - (fusec_u32)b); }
FUSEC_FN fusec_i32 fusec_mul32(fusec_i32 a, fusec_i32 b) { return (fusec_i32)((fusec_u32)a * (fusec_u32)b); }
FUSEC_FN fusec_i64 fusec_add64(fusec_i64 a, fusec_i64 b) { return (fusec_i64)((fusec_u64)a + (fusec_u64)b); }
FUSEC_FN fusec_i64 fusec_sub64(fusec_i64 a, fusec_i64 b) { return (fusec_i64)((fusec_u64)a - (fusec_u64)b); }
FUSEC_FN fusec_i64 fusec_mul64(fusec_i64 a, fusec_i64 b) { return (fusec_i64)((fusec_u64)a * (fusec_u64)b); }
FUSEC_FN fusec_i32 fusec_div32(fusec_i32 a, fusec_i32 b) {
  return b == 0 ? 0 : b == -1 ? fusec_sub32(0, a) : a / b;
}
FUSEC_FN fusec_i64 fusec_div64(fusec_i64 a, fusec_i64 b) {
  return b == 0 ? 0 : b == -1 ? fusec_sub64(0, a) : a / b;
}

// Unary float functions, evaluated in f32 exactly as the reference does.
FUSEC_FN float fusec_relu(float x) { return ((x > 0.0f) | (x != x)) ? x : 0.0f; }
FUSEC_FN float fusec_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
FUSEC_FN float fusec_rsqrt(float x) { return 1.0f / sqrtf(x); }
FUSEC_FN float fusec_gelu(float x) {
  return 0.5f * x * (1.0f + erff(x * 0.70710678118654752440f));
}
FUSEC_FN float fusec_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
}

// float -> integer: round to nearest even, saturate, NaN -> 0.
FUSEC_FN fusec_i32 fusec_f2i32(float f) {
  if (f != f) return 0;
  float r = rintf(f);
  if (r >= 2147483648.0f) return 2147483647;
  if (r < -2147483648.0f) return (fusec_i32)0x80000000u;
  return (fusec_i32)r;
}
FUSEC_FN fusec_i64 fusec_f2i64(float f) {
  if (f != f) return 0;
  float r = rintf(f);
  if (r >= 9223372036854775808.0f) return 9223372036854775807ll;
  if (r < -9223372036854775808.0f) return (fusec_i64)0x8000000000000000ull;
  return (fusec_i64)r;
}

// f64 computes in f64: bit casts, IEEE maximum/minimum, the unary functions
// as the reference evaluates them in double, and conversions.
#if defined(FUSEC_HOST) || defined(FUSEC_CPU)
FUSEC_FN fusec_u64 fusec_d2u(double d) { fusec_u64 u; std::memcpy(&u, &d, 8); return u; }
FUSEC_FN double fusec_u2d(fusec_u64 u) { double d; std::memcpy(&d, &u, 8); return d; }
#else
FUSEC_FN fusec_u64 fusec_d2u(double d) { return (fusec_u64)__double_as_longlong(d); }
FUSEC_FN double fusec_u2d(fusec_u64 u) { return __longlong_as_double((long long)u); }
#endif
FUSEC_FN double fusec_maxd(double a, double b) {
  double r = a > b ? a : b;
  r = a == b ? fusec_u2d(fusec_d2u(a) & fusec_d2u(b)) : r;
  return ((a != a) | (b != b)) ? a + b : r;
}
FUSEC_FN double fusec_mind(double a, double b) {
  double r = a < b ? a : b;
  r = a == b ? fusec_u2d(fusec_d2u(a) | fusec_d2u(b)) : r;
  return ((a != a) | (b != b)) ? a + b : r;
}
FUSEC_FN double fusec_relud(double x) { return ((x > 0.0) | (x != x)) ? x : 0.0; }
FUSEC_FN double fusec_sigmoidd(double x) { return 1.0 / (1.0 + exp(-x)); }
FUSEC_FN double fusec_rsqrtd(double x) { return 1.0 / sqrt(x); }
FUSEC_FN double fusec_gelud(double x) {
  return 0.5 * x * (1.0 + erf(x * 0.70710678118654752440));
}
FUSEC_FN double fusec_gelu_tanhd(double x) {
  return 0.5 * x * (1.0 + tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
FUSEC_FN fusec_i32 fusec_d2i32(double f) {
  if (f != f) return 0;
  double r = rint(f);
  if (r >= 2147483648.0) return 2147483647;
  if (r < -2147483648.0) return (fusec_i32)0x80000000u;
  return (fusec_i32)r;
}
FUSEC_FN fusec_i64 fusec_d2i64(double f) {
  if (f != f) return 0;
  double r = rint(f);
  if (r >= 9223372036854775808.0) return 9223372036854775807ll;
  if (r < -9223372036854775808.0) return (fusec_i64)0x8000000000000000ull;
  return (fusec_i64)r;
}

// fusec.random_uniform: Philox 4x32-10, element `index` of the tensor drawn
// with (seed, step, stream), as fusec::philoxUniform (fusec/Support/Philox.h)
// computes it; the same source on the GPU and the host.
FUSEC_FN float fusec_philox_uniform(fusec_u32 seed, fusec_u32 step,
                                    fusec_u32 stream, fusec_u64 index) {
  fusec_u64 block = index >> 2;
  fusec_u32 c0 = (fusec_u32)block, c1 = (fusec_u32)(block >> 32), c2 = step,
            c3 = 0u, k0 = seed, k1 = stream;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    fusec_u64 p0 = (fusec_u64)0xD2511F53u * c0;
    fusec_u64 p1 = (fusec_u64)0xCD9E8D57u * c2;
    fusec_u32 n0 = (fusec_u32)(p1 >> 32) ^ c1 ^ k0;
    fusec_u32 n2 = (fusec_u32)(p0 >> 32) ^ c3 ^ k1;
    c1 = (fusec_u32)p1;
    c3 = (fusec_u32)p0;
    c0 = n0;
    c2 = n2;
  }
  fusec_u32 lane = (fusec_u32)(index & 3u);
  fusec_u32 word = lane == 0u ? c0 : lane == 1u ? c1 : lane == 2u ? c2 : c3;
  return (float)(word >> 8) * 5.9604644775390625e-08f; // 2^-24
}

// Storage of a whole vector of elements, for 128-bit loads and stores.
template <typename T, int N> struct alignas(sizeof(T) * N) fusec_vec { T v[N]; };
)cuda";
}

std::string fusec::cpuPrelude() {
  // Float16.h's text (generated by CMake from the header), so that the
  // unit compiles with no include path of fusec's.
  static const char *float16 =
#include "Float16Source.inc"
      ;
  return std::string("// fusec CPU kernels\n#define FUSEC_CPU 1\n"
                     "#include <math.h>\n") +
         float16 + "\n" + cudaPrelude();
}
