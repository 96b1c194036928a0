//===- FusecDialect.td - fusec dialect definition ----------*- tablegen -*-===//
//
// The fusec dialect: tensor graphs of statically shaped tensors, the input
// of fusec's fusion, mixed-precision and code generation passes.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DIALECT
#define FUSEC_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/EnumAttr.td"

def Fusec_Dialect : Dialect {
  let name = "fusec";
  let cppNamespace = "::fusec";
  let summary = "Tensor graphs for kernel fusion and mixed precision";
  let description = [{
    The `fusec` dialect holds tensor programs as graphs of value-semantic
    operations on ranked, statically shaped tensors of `f32`, `f16`, `bf16`,
    `i1`, `i32` and `i64` (`i32`/`i64` are read as signed integers, `i1` as
    the booleans 0 < 1). It is the
    representation on which fusec folds concatenate/split pairs, fuses
    elementwise chains into kernels and rewrites to lower precision, and the
    language of fusec's reference interpreter.

    Semantics shared by all operations, and implemented exactly by the
    reference interpreter:

    * Floating-point arithmetic is performed in f32 whatever the storage type.
      Results of `f16`/`bf16` operations are rounded once to their type,
      to nearest with ties to even, after every operation. Overflow gives
      infinities; NaN inputs give NaN results unless an operation says
      otherwise. The payload of a NaN, and whether a signaling NaN comes out
      quieted, are not specified (folding `x * 1` to `x` keeps a signaling
      NaN that evaluating the multiplication would quiet).
    * Sums (`reduce_sum`, `reduce_mean`, `matmul`) accumulate in f64, in
      row-major order of the reduced elements, and round once to the result
      type.
    * Integer arithmetic wraps around (two's complement); integer division
      truncates toward zero, `x / 0` is 0 and `INT_MIN / -1` is `INT_MIN`.
    * Binary elementwise operations, `compare` and `select` broadcast their
      operands like NumPy: shapes are aligned at the trailing dimension, and a
      dimension of size 1 (or a missing leading dimension) stretches to the
      size of the other operands. Element types are never promoted: operands
      must agree.
    * Dimensions may be 0; operations on empty tensors are well defined.
  }];
  let hasConstantMaterializer = 1;
  let extraClassDeclaration = [{
    /// Registers the dialect's operations (defined in FusecOps.cpp).
    void registerOps();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def Fusec_AnyElement : AnyTypeOf<[F32, F16, BF16, F64, I1, I32, I64]>;
def Fusec_FloatElement : AnyTypeOf<[F32, F16, BF16, F64]>;
def Fusec_NumericElement : AnyTypeOf<[F32, F16, BF16, F64, I32, I64]>;

def Fusec_NoEncodingPred :
  CPred<"!::llvm::cast<::mlir::RankedTensorType>($_self).getEncoding()">;

// The summary is completed by ODS with the list of allowed element types.
class Fusec_TensorOf<list<Type> allowed>
  : RankedTensorOf<allowed, [HasStaticShapePred, Fusec_NoEncodingPred],
                   "statically shaped tensor">;

def Fusec_Tensor : Fusec_TensorOf<[F32, F16, BF16, F64, I1, I32, I64]>;
def Fusec_FloatTensor : Fusec_TensorOf<[F32, F16, BF16, F64]>;
def Fusec_NumericTensor : Fusec_TensorOf<[F32, F16, BF16, F64, I32, I64]>;
def Fusec_BoolTensor : Fusec_TensorOf<[I1]>;

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Fusec_CmpPredicate : I32EnumAttr<"CmpPredicate",
    "comparison predicate", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>
    ]> {
  let cppNamespace = "::fusec";
}

def Fusec_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "GELU formula", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let cppNamespace = "::fusec";
}

def Fusec_PadMode : I32EnumAttr<"PadMode",
    "where padding values come from", [
      I32EnumAttrCase<"constant", 0>,
      I32EnumAttrCase<"reflect", 1>,
      I32EnumAttrCase<"edge", 2>
    ]> {
  let cppNamespace = "::fusec";
}

// The kind of a fusion: the plain C++ enum fusec::FusionKind
// (fusec/Support/FusionKind.h), which the runtime shares, stored as an i32.
def Fusec_FusionKindAttr : Attr<CPred<"::fusec::isFusionKindAttr($_self)">,
                                "kind of fusion: loop, row_reduction, "
                                "reduction or matmul"> {
  let storageType = "::mlir::IntegerAttr";
  let returnType = "::fusec::FusionKind";
  let convertFromStorage = "static_cast<::fusec::FusionKind>($_self.getInt())";
  let constBuilderCall =
      "::fusec::getFusionKindAttr($_builder.getContext(), $0)";
}

#endif // FUSEC_DIALECT
