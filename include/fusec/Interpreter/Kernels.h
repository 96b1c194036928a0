//===- Kernels.h - Reference CPU kernels ------------------------*- C++ -*-===//
//
// The reference semantics of every fusec operation, as loops over dense host
// Buffers. No dependency on MLIR: the interpreter, the constant folder and
// (later) the host-side checks of generated GPU code all call these, so there
// is exactly one definition of what an operation computes.
//
// Conventions shared by all kernels:
//  * The caller allocates `out` with the result's dtype and shape; kernels
//    never allocate and never fail. Shapes and dtypes must be consistent (the
//    op verifiers guarantee this for IR); kernels do not re-check them.
//  * Floating-point arithmetic is done in f32 whatever the storage type;
//    f16/bf16 results are rounded once, to nearest even, when stored.
//  * Sums (reduce_sum, reduce_mean, matmul) accumulate in f64 in row-major
//    order of the reduced elements and are rounded once at the end.
//  * Integer arithmetic wraps (two's complement); integer division truncates
//    toward zero, x / 0 == 0 and INT_MIN / -1 == INT_MIN.
//  * max/min propagate NaN and order -0 below +0 (IEEE 754-2019 maximum and
//    minimum).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_INTERPRETER_KERNELS_H
#define FUSEC_INTERPRETER_KERNELS_H

#include "fusec/Support/Buffer.h"
#include "fusec/Support/Window.h"

#include <vector>

namespace fusec::kernels {

enum class UnaryKind {
  Neg,
  Abs,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Tanh,
  Sigmoid,
  Relu,
  Erf,
  GeluErf,  // 0.5 x (1 + erf(x / sqrt 2))
  GeluTanh, // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
  Floor,
  Ceil,
  Round, // to nearest, halves to even
  Trunc,
  Sin,
  Cos,
  Atan,
};

enum class BinaryKind { Add, Sub, Mul, Div, Max, Min, Pow };

enum class CompareKind { Eq, Ne, Lt, Le, Gt, Ge };

enum class LogicalKind { And, Or, Xor };

enum class ReduceKind { Sum, Max, Min, Mean, Prod };

/// NumPy broadcast of two shapes; false if incompatible.
bool broadcastShapes(const Shape &a, const Shape &b, Shape &result);

/// out = op(in), same shape and dtype.
void unary(UnaryKind kind, const Buffer &in, Buffer &out);

/// out = op(lhs, rhs) with NumPy broadcasting of both operands to out.shape.
void binary(BinaryKind kind, const Buffer &lhs, const Buffer &rhs, Buffer &out);

/// out (i1) = lhs <pred> rhs, broadcasting. NaN compares unordered: only Ne
/// is true.
void compare(CompareKind kind, const Buffer &lhs, const Buffer &rhs,
             Buffer &out);

/// out = cond ? onTrue : onFalse, all three broadcast to out.shape.
void select(const Buffer &cond, const Buffer &onTrue, const Buffer &onFalse,
            Buffer &out);

/// out = lhs op rhs on i1 buffers (0/1), with broadcasting.
void logical(LogicalKind kind, const Buffer &lhs, const Buffer &rhs,
             Buffer &out);
/// out = !in on i1 buffers.
void logicalNot(const Buffer &in, Buffer &out);

/// Element type conversion, same shape. Floats to narrower floats and
/// integers to floats round to nearest even (one rounding). Floats to integers
/// round to nearest even and saturate; NaN becomes 0. Integers to narrower
/// integers wrap. Anything to i1 is `x != 0` (NaN -> 1); i1 to numbers is 0/1.
void cast(const Buffer &in, Buffer &out);

/// NumPy broadcast of `in` to out.shape.
void broadcastTo(const Buffer &in, Buffer &out);

/// out[i_perm[0], ..., i_perm[r-1]] = in[i_0, ..., i_{r-1}]; that is, result
/// dimension d is input dimension perm[d].
void transpose(const Buffer &in, const std::vector<int64_t> &perm, Buffer &out);

/// out[i] = in[start + i * stride] per dimension; out.shape is the size.
void slice(const Buffer &in, const std::vector<int64_t> &start,
           const std::vector<int64_t> &stride, Buffer &out);

/// Concatenation along `axis`.
void concat(const std::vector<const Buffer *> &inputs, int64_t axis,
            Buffer &out);

/// Reduction of `in` over the (sorted, unique) `axes`. `out` holds the
/// reduced elements in row-major order; whether its shape keeps the reduced
/// dimensions as 1 does not matter. Empty reductions give 0 (sum), NaN
/// (mean), -inf/+inf or the integer limits (max/min).
void reduce(ReduceKind kind, const Buffer &in, const std::vector<int64_t> &axes,
            Buffer &out);

enum class PadKind { Constant, Reflect, Edge };

/// Padding of every dimension: `low[d]` elements before, `interior[d]`
/// between consecutive elements (Constant only) and the rest of out.shape
/// after. Constant fills with `value` converted to the element type;
/// Reflect mirrors without repeating the edge; Edge repeats it.
void pad(const Buffer &in, const std::vector<int64_t> &low,
         const std::vector<int64_t> &interior, PadKind kind, double value,
         Buffer &out);

/// out[p..., j..., q...] = in[p..., k, q...] with k = indices[j...] along
/// `axis`: negative indices count from the end, others are clamped to the
/// axis.
void gather(const Buffer &in, const Buffer &indices, int64_t axis, Buffer &out);

/// Uniform floats in [0, 1) (f32 `out`): out[i] = philoxUniform(key[0],
/// key[1], stream, i) for each row-major position i (fusec/Support/Philox.h);
/// `key` holds two i32, the seed and the step.
void randomUniform(const Buffer &key, int64_t stream, Buffer &out);

/// The windows of an NHWC tensor: out [N, OH, OW, KH, KW, C] with
/// out[n, i, j, p, q, c] = in[n, i*SH + p*DH, j*SW + q*DW, c] (no padding).
void patches(const Buffer &in, const Window2D &window, Buffer &out);

/// Grouped 2-D convolution: in [N, H, W, C] (NHWC), filter [KH, KW, C/g, F]
/// (HWIO), optional bias [F]; zero padding as `window` says. Sums over
/// (p, q, c) in that order in f64, rounded once, then the bias added in the
/// compute type.
void conv2d(const Buffer &in, const Buffer &filter, const Buffer *bias,
            const Window2D &window, int64_t groups, Buffer &out);

enum class PoolKind {
  Max,        // -inf (integers: the minimum) in the padding
  Average,    // divided by the elements inside the input
  AverageAll, // divided by KH * KW (padding counts as zeros)
};

/// 2-D pooling of an NHWC tensor per channel.
void pool2d(PoolKind kind, const Buffer &in, const Window2D &window,
            Buffer &out);

/// Batched matrix product: a [..., M, K] x b [..., K, N] -> out [..., M, N],
/// batch dimensions broadcast.
void matmul(const Buffer &a, const Buffer &b, Buffer &out);

} // namespace fusec::kernels

#endif // FUSEC_INTERPRETER_KERNELS_H
