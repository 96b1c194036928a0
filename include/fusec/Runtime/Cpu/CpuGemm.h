//===- CpuGemm.h - The cpu device's matrix products -------------*- C++ -*-===//
//
// The cpu device computes each cuBLASLt call of a plan (fusec/Runtime/
// Matmul.h) with oneDNN's matmul primitive: the call's layouts become
// strided memory descriptors (no copy, no reorder), its bias and gelu are
// oneDNN's bias and post-op, and the primitive is created once, when the
// step list is recorded, never per run. Relu runs after the primitive, on
// the result, with the contract's definition (ReferenceGemm.h): oneDNN's
// turns NaN into 0 (its gelu keeps +inf, -inf -> NaN, NaN as the contract
// does, which the tests check). oneDNN
// runs on its own OpenMP threads, as many as the device's pool has; the two
// never run at the same time (a plan's steps run in order).
//
// Numerics. oneDNN adds a product's K terms in f32 in its own blocked
// order, with FMA, so results differ from the reference GEMM's (double
// accumulation in K order) by about sqrt(K) roundings of f32, relative to
// the sum of the terms' magnitudes: the tolerance of a GPU's cuBLASLt.
// f16 and bf16 operands are multiplied exactly and accumulated in f32, as
// on a GPU, except that the CPU's bf16 dot-product instructions (AMX,
// AVX512_BF16) read denormal bf16 operands as zero. oneDNN 2.x has no f16
// matmul on CPUs: f16 operands are converted to f32 before each run and an
// f16 D is rounded from an f32 result (exact products, so the same
// numerics).
//
// Where oneDNN is missing (fusec built without it) or has no kernel for a
// call (an empty sum over K), the call runs on the reference GEMM, and the
// reason is kept for the device report.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CPU_CPUGEMM_H
#define FUSEC_RUNTIME_CPU_CPUGEMM_H

#include "fusec/Runtime/Matmul.h"

#include <memory>
#include <string>

namespace fusec::rt {

/// One MatmulCall, bound to its operands' memory and ready to run.
class CpuGemm {
public:
  virtual ~CpuGemm();
  /// Computes the call on the operands it was prepared with.
  virtual void run() = 0;
};

/// Prepares `call` on `threads` threads, with its operands at `a`, `b`, `d`
/// and `bias` (as runReferenceGemm takes them), or returns null with `why`
/// set to the reason oneDNN does not compute it (without a prefix, e.g.
/// "fusec was built without oneDNN").
std::unique_ptr<CpuGemm> prepareCpuGemm(const MatmulCall &call, int threads,
                                        const void *a, const void *b, void *d,
                                        const void *bias, std::string &why);

/// The library behind prepareCpuGemm, e.g. "oneDNN 2.6.3", or "" when fusec
/// was built without one.
std::string cpuGemmLibrary();

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CPU_CPUGEMM_H
