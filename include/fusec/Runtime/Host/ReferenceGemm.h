//===- ReferenceGemm.h - cublasLtMatmul on the CPU --------------*- C++ -*-===//
//
// Executes one MatmulCall (fusec/Runtime/Matmul.h) on the host, following
// cuBLASLt's documented semantics literally: the layouts' element
// addressing (column- or row-major, leading dimension, strided batch), the
// op flags, alpha and beta, the epilogue with its bias, the output type.
// The host runtime computes matmul steps with it, and the tests check
// describeMatmul's calls through it against the interpreter, so a wrong
// layout, op flag, offset or stride in a description is a wrong result.
//
// Numerics. They are fusec.matmul's, not cuBLASLt's (whose accumulation
// order is the kernel's own, so results on a GPU agree only within a
// tolerance):
//  * Each element's sum over K is accumulated in double, in order of K,
//    starting from -0.0 (the additive identity), or +0.0 when K = 0 (the
//    empty sum is +0), exactly as kernels::matmul does. Products of f32,
//    f16 or bf16 values are exact in double.
//  * The DEFAULT epilogue with alpha = 1 and beta = 0 rounds that double
//    once, to nearest even, to D's type: bit for bit the result of
//    fusec.matmul with the same output type.
//  * Any other epilogue rounds the sum to f32 (the compute type), adds the
//    bias converted to f32 in f32, applies relu as
//    `x > 0 ? x : (x != x ? x : 0)` (NaN propagates) or gelu as the f32
//    tanh form of the reference kernels' GeluTanh,
//    `0.5f * x * (1.0f + std::tanh(0.79788456080286535588f *
//    (x + 0.044715f * x * x * x)))`, and rounds the f32 once to D's type.
//    So an f32 chain matmul -> add bias -> relu / gelu(tanh) of the
//    interpreter (done in f32, then cast to D's type for f16/bf16 results)
//    matches bit for bit.
//  * alpha != 1 or beta != 0 (which describeMatmul never produces) take the
//    f32 path: x = alpha * f32(sum) + beta * C in f32, C read from D (the
//    contract's C is D); with beta = 0, C is not read, as in cuBLAS.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_HOST_REFERENCEGEMM_H
#define FUSEC_RUNTIME_HOST_REFERENCEGEMM_H

#include "fusec/Runtime/Matmul.h"

#include <cmath>

namespace fusec::rt {

/// The epilogues' activations on the f32 value (the numerics above): relu
/// keeps NaN, gelu is the reference kernels' tanh form (+inf gives +inf,
/// -inf and NaN give NaN).
inline float epilogueRelu(float x) {
  return x > 0.0f ? x : (x != x ? x : 0.0f);
}
inline float epilogueGelu(float x) {
  return 0.5f * x *
         (1.0f +
          std::tanh(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
}

/// Computes `call`. Each pointer points at its operand's first element
/// (the buffer's data plus the call's byte offset); `bias` is ignored (may
/// be null) unless the epilogue has a bias. D must not overlap A, B or the
/// bias. The batch count is D's (describeMatmul gives A and B the same);
/// each operand advances by its own batch stride.
void runReferenceGemm(const MatmulCall &call, const void *a, const void *b,
                      void *d, const void *bias);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_HOST_REFERENCEGEMM_H
