//===- OpProperties.h - What each fusec operation declares ------*- C++ -*-===//
//
// The properties every fusec operation declares with its definition in
// FusecOps.td (the `Fusec_Properties` trait, a required argument of
// `Fusec_Op`), read by the passes through `FusecOpInterface`: how fusion
// treats it, how mixed precision paints it, and whether recomputing it per
// element is costly. An operation without them does not compile.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT_FUSEC_IR_OPPROPERTIES_H
#define FUSEC_DIALECT_FUSEC_IR_OPPROPERTIES_H

#include "mlir/IR/OpDefinition.h"

namespace fusec {

/// How the fusion planner treats an operation.
enum class FusionClass {
  /// A scalar function of broadcast operands: fuses into any kernel.
  Elementwise,
  /// Data movement computed as index arithmetic (reshape, transpose,
  /// broadcast, slice, concat): fuses, reads its input at other positions.
  Index,
  /// Reduces over axes (ReductionOpInterface): anchors a reduction kernel.
  Reduction,
  /// A constant: folded into its users' kernels or passed as a buffer.
  Constant,
  /// Not fused with its neighbours (matmul: cuBLASLt; fusion).
  Boundary,
};

/// How `fusec-mixed-precision` paints an f32 operation (see the pass
/// description): the default class, which the pass's lists can override.
enum class PrecisionClass {
  /// Always computed in the low type (matmul: tensor cores, f32 accumulation).
  Allow,
  /// In the low type when an operand is.
  Infer,
  /// Kept in f32 (range or accuracy: exp, log, reductions).
  Deny,
  /// Exact in any type (data movement, max/min, select, compare): follows
  /// its operands.
  Clear,
  /// Never rewritten (constant, cast, fusion).
  Fixed,
};

/// Whether the planner may compute an operation more than once per element
/// (when two kernels both need its value).
enum class Cost { Cheap, Expensive };

/// How a reduction combines the elements it reduces.
enum class ReductionCombiner { Sum, Max, Min, Mean, Prod };

namespace OpTrait {
/// The trait `Fusec_Properties<...>` attaches: the properties as constants
/// that FusecOpInterface's default methods return.
template <FusionClass F, PrecisionClass P, Cost C> struct Properties {
  template <typename ConcreteOp>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteOp, Impl> {
  public:
    static constexpr FusionClass kFusionClass = F;
    static constexpr PrecisionClass kPrecisionClass = P;
    static constexpr Cost kCost = C;
  };
};
} // namespace OpTrait

} // namespace fusec

#endif // FUSEC_DIALECT_FUSEC_IR_OPPROPERTIES_H
