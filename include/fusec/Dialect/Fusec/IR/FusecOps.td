//===- FusecOps.td - fusec operations ----------------------*- tablegen -*-===//

#ifndef FUSEC_OPS
#define FUSEC_OPS

include "fusec/Dialect/Fusec/IR/FusecDialect.td"
include "fusec/Dialect/Fusec/IR/FusecInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

/// What every operation declares (include/fusec/Dialect/Fusec/IR/
/// OpProperties.h, read through FusecOpInterface): its FusionClass (an
/// `Elementwise` operation applies a scalar function to broadcast operands:
/// the result element at an index depends only on the operand elements at
/// the same broadcast index), its default PrecisionClass for mixed
/// precision, and its Cost.
class Fusec_Properties<string fusion, string precision, string cost>
    : ParamNativeOpTrait<"Properties", "::fusec::FusionClass::" # fusion #
                         ", ::fusec::PrecisionClass::" # precision #
                         ", ::fusec::Cost::" # cost> {
  let cppNamespace = "::fusec::OpTrait";
}

/// A fusec operation: its properties are required, it is evaluable (the
/// interpreter), and, unless `differentiable` is 0, it has a derivative
/// rule (DifferentiableOpInterface, in FusecGradients.cpp): an operation
/// missing one does not build.
class Fusec_Op<string mnemonic, Fusec_Properties properties,
               list<Trait> traits = [], bit differentiable = 1>
    : Op<Fusec_Dialect, mnemonic, !listconcat(traits, [Pure, properties,
        Fusec_OpInterface,
        DeclareOpInterfaceMethods<Fusec_EvaluableOpInterface>],
        !if(differentiable,
            [DeclareOpInterfaceMethods<Fusec_DifferentiableOpInterface>],
            []))>;

//===----------------------------------------------------------------------===//
// constant
//===----------------------------------------------------------------------===//

def Fusec_ConstantOp : Fusec_Op<"constant",
    Fusec_Properties<"Constant", "Fixed", "Cheap">, [ConstantLike,
    AllTypesMatch<["value", "result"]>]> {
  let summary = "A tensor of constant values";
  let description = [{
    Produces the tensor given by `value`, a `dense<...>` literal or a
    `dense_resource<...>` blob (not for `i1`) whose type is the result type.

    ```mlir
    %0 = fusec.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Unary elementwise operations
//===----------------------------------------------------------------------===//

class Fusec_UnaryOp<string mnemonic, Type type, string formula,
                    string precision, string cost, list<Trait> traits = []>
    : Fusec_Op<mnemonic, Fusec_Properties<"Elementwise", precision, cost>,
               !listconcat(traits, [SameOperandsAndResultType])> {
  let summary = "Elementwise " # formula;
  let arguments = (ins type:$input);
  let results = (outs type:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Fusec_NegOp : Fusec_UnaryOp<"neg", Fusec_NumericTensor, "-x",
    "Infer", "Cheap"> {
  let description = [{
    Negation. Floats flip their sign bit (`-0` for `0`, NaN stays NaN);
    integers wrap (`-INT_MIN == INT_MIN`).
  }];
}

def Fusec_AbsOp : Fusec_UnaryOp<"abs", Fusec_NumericTensor, "|x|",
    "Infer", "Cheap"> {
  let description = [{
    Absolute value. Floats clear their sign bit; integers wrap
    (`abs(INT_MIN) == INT_MIN`).
  }];
}

def Fusec_ExpOp : Fusec_UnaryOp<"exp", Fusec_FloatTensor, "e^x",
    "Deny", "Expensive"> {
  let description = [{ `expf(x)` in f32. }];
}

def Fusec_LogOp : Fusec_UnaryOp<"log", Fusec_FloatTensor, "natural logarithm",
    "Deny", "Expensive"> {
  let description = [{
    `logf(x)` in f32: `log(0) == -inf`, NaN for negative inputs.
  }];
}

def Fusec_SqrtOp : Fusec_UnaryOp<"sqrt", Fusec_FloatTensor, "square root",
    "Infer", "Cheap"> {
  let description = [{
    `sqrtf(x)`, correctly rounded; NaN for negative inputs, `sqrt(-0) == -0`.
  }];
}

def Fusec_RsqrtOp : Fusec_UnaryOp<"rsqrt", Fusec_FloatTensor,
    "reciprocal square root", "Deny", "Cheap"> {
  let description = [{
    `1.0f / sqrtf(x)`, two f32 roundings: `rsqrt(0) == +inf`,
    `rsqrt(-0) == -inf`.
  }];
}

def Fusec_ReciprocalOp : Fusec_UnaryOp<"reciprocal", Fusec_FloatTensor, "1/x",
    "Deny", "Cheap"> {
  let description = [{ `1.0f / x` in f32. }];
}

def Fusec_TanhOp : Fusec_UnaryOp<"tanh", Fusec_FloatTensor,
    "hyperbolic tangent", "Infer", "Expensive"> {
  let description = [{ `tanhf(x)` in f32. }];
}

def Fusec_SigmoidOp : Fusec_UnaryOp<"sigmoid", Fusec_FloatTensor,
    "logistic sigmoid", "Infer", "Expensive"> {
  let description = [{
    `1.0f / (1.0f + expf(-x))` in f32: 0 for large negative x, 1 for large
    positive x.
  }];
}

def Fusec_ReluOp : Fusec_UnaryOp<"relu", Fusec_NumericTensor, "max(x, 0)",
    "Infer", "Cheap"> {
  let description = [{
    `x > 0 ? x : 0`, with NaN propagated and `relu(-0) == +0`.
  }];
}

def Fusec_ErfOp : Fusec_UnaryOp<"erf", Fusec_FloatTensor, "error function",
    "Infer", "Expensive"> {
  let description = [{ `erff(x)` in f32. }];
}

def Fusec_FloorOp : Fusec_UnaryOp<"floor", Fusec_FloatTensor,
    "rounding down", "Infer", "Cheap"> {
  let description = [{
    `floorf(x)`: the largest integer not above x (exact; NaN, infinities
    and signed zeros kept).
  }];
}

def Fusec_CeilOp : Fusec_UnaryOp<"ceil", Fusec_FloatTensor,
    "rounding up", "Infer", "Cheap"> {
  let description = [{ `ceilf(x)`: the smallest integer not below x (exact). }];
}

def Fusec_RoundOp : Fusec_UnaryOp<"round", Fusec_FloatTensor,
    "rounding to nearest even", "Infer", "Cheap"> {
  let description = [{
    `rintf(x)` in the default rounding mode: the nearest integer, halves to
    even (`round(2.5) == 2`), as ONNX's Round and NumPy's `round`.
  }];
}

def Fusec_TruncOp : Fusec_UnaryOp<"trunc", Fusec_FloatTensor,
    "rounding toward zero", "Infer", "Cheap"> {
  let description = [{
    `truncf(x)`: the integer part (what C's float-to-integer conversion and
    ONNX's Cast to an integer type do before converting).
  }];
}

def Fusec_SinOp : Fusec_UnaryOp<"sin", Fusec_FloatTensor, "sine",
    "Deny", "Expensive"> {
  let description = [{ `sinf(x)` in f32 (radians). }];
}

def Fusec_CosOp : Fusec_UnaryOp<"cos", Fusec_FloatTensor, "cosine",
    "Deny", "Expensive"> {
  let description = [{ `cosf(x)` in f32 (radians). }];
}

def Fusec_AtanOp : Fusec_UnaryOp<"atan", Fusec_FloatTensor, "arctangent",
    "Infer", "Expensive"> {
  let description = [{
    `atanf(x)` in f32, in `[-pi/2, pi/2]` (`atan(+-inf) == +-pi/2`).
  }];
}

def Fusec_GeluOp : Fusec_UnaryOp<"gelu", Fusec_FloatTensor,
    "Gaussian error linear unit", "Infer", "Expensive"> {
  let description = [{
    With `approximate = none` (the default, omitted when printing) the exact
    form `0.5f * x * (1 + erff(x * 0.70710678f))`; with `approximate = tanh`
    the tanh approximation
    `0.5f * x * (1 + tanhf(0.79788456f * (x + 0.044715f * x * x * x)))`,
    evaluated in f32 in that order.

    ```mlir
    %1 = fusec.gelu %0 approximate = tanh : tensor<8xf16>
    ```
  }];
  let arguments = (ins Fusec_FloatTensor:$input,
                   DefaultValuedAttr<Fusec_GeluApproximation,
                       "::fusec::GeluApproximation::none">:$approximate);
  let assemblyFormat =
      "$input (`approximate` `=` $approximate^)? attr-dict `:` type($input)";
}

//===----------------------------------------------------------------------===//
// Binary elementwise operations
//===----------------------------------------------------------------------===//

class Fusec_BinaryOp<string mnemonic, Type type, string formula,
                     string precision, string cost, list<Trait> traits = []>
    : Fusec_Op<mnemonic, Fusec_Properties<"Elementwise", precision, cost>,
               !listconcat(traits, [InferTypeOpAdaptor])> {
  let summary = "Elementwise " # formula # " with broadcasting";
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  // One type when both operands agree, otherwise both:
  //   fusec.add %a, %b : tensor<4x3xf32>, tensor<3xf32>
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` custom<OperandTypes>(type($lhs), type($rhs))
  }];
  let hasFolder = 1;
}

def Fusec_AddOp : Fusec_BinaryOp<"add", Fusec_NumericTensor, "lhs + rhs",
    "Infer", "Cheap", [Commutative]> {
  let description = [{
    Sum; integers wrap. The result shape is the broadcast of the operand
    shapes.

    ```mlir
    %2 = fusec.add %0, %1 : tensor<4x3xf32>, tensor<3xf32>
    ```
  }];
}

def Fusec_SubOp : Fusec_BinaryOp<"sub", Fusec_NumericTensor, "lhs - rhs",
    "Infer", "Cheap"> {
  let description = [{ Difference; integers wrap. }];
}

def Fusec_MulOp : Fusec_BinaryOp<"mul", Fusec_NumericTensor, "lhs * rhs",
    "Infer", "Cheap", [Commutative]> {
  let description = [{ Product; integers wrap. }];
}

def Fusec_DivOp : Fusec_BinaryOp<"div", Fusec_NumericTensor, "lhs / rhs",
    "Infer", "Cheap"> {
  let description = [{
    Quotient. Floats follow IEEE 754 (`x / 0` is an infinity or NaN).
    Integers truncate toward zero; `x / 0 == 0` and `INT_MIN / -1 == INT_MIN`.
  }];
}

def Fusec_MaxOp : Fusec_BinaryOp<"max", Fusec_NumericTensor, "maximum",
    "Clear", "Cheap", [Commutative]> {
  let description = [{
    IEEE 754-2019 `maximum`: NaN if either operand is NaN, and
    `max(-0, +0) == +0`.
  }];
}

def Fusec_MinOp : Fusec_BinaryOp<"min", Fusec_NumericTensor, "minimum",
    "Clear", "Cheap", [Commutative]> {
  let description = [{
    IEEE 754-2019 `minimum`: NaN if either operand is NaN, and
    `min(-0, +0) == -0`.
  }];
}

def Fusec_PowOp : Fusec_BinaryOp<"pow", Fusec_FloatTensor, "lhs ^ rhs",
    "Deny", "Expensive"> {
  let description = [{
    `powf(lhs, rhs)` in f32 (C99 special cases: `pow(x, 0) == 1` even for
    NaN x, a negative base with a non-integer exponent gives NaN).
  }];
}

//===----------------------------------------------------------------------===//
// Logical operations on i1
//===----------------------------------------------------------------------===//

def Fusec_AndOp : Fusec_BinaryOp<"and", Fusec_BoolTensor, "logical and",
    "Fixed", "Cheap", [Commutative]> {
  let description = [{
    `lhs && rhs` per element of two `i1` tensors, with broadcasting.

    ```mlir
    %m = fusec.and %a, %b : tensor<4x3xi1>, tensor<3xi1>
    ```
  }];
}

def Fusec_OrOp : Fusec_BinaryOp<"or", Fusec_BoolTensor, "logical or",
    "Fixed", "Cheap", [Commutative]> {
  let description = [{ `lhs || rhs` per element, with broadcasting. }];
}

def Fusec_XorOp : Fusec_BinaryOp<"xor", Fusec_BoolTensor,
    "logical exclusive or", "Fixed", "Cheap", [Commutative]> {
  let description = [{ `lhs != rhs` per element, with broadcasting. }];
}

def Fusec_NotOp : Fusec_UnaryOp<"not", Fusec_BoolTensor, "logical not",
    "Fixed", "Cheap"> {
  let description = [{ `!x` per element of an `i1` tensor. }];
}

//===----------------------------------------------------------------------===//
// compare, select, cast
//===----------------------------------------------------------------------===//

def Fusec_CompareOp : Fusec_Op<"compare",
    Fusec_Properties<"Elementwise", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Elementwise comparison with broadcasting";
  let description = [{
    Compares `lhs` and `rhs` elementwise with `predicate` (`eq`, `ne`, `lt`,
    `le`, `gt`, `ge`) and yields an `i1` tensor of the broadcast shape.
    `i32`/`i64` compare as signed integers, `i1` as 0 (false) < 1 (true).
    Floats compare as IEEE 754 values: `-0 == +0`,
    and a NaN operand makes every predicate false except `ne`, which is true.

    ```mlir
    %m = fusec.compare lt, %a, %b : tensor<4xf32>
    ```
  }];
  let arguments = (ins Fusec_CmpPredicate:$predicate, Fusec_Tensor:$lhs,
                   Fusec_Tensor:$rhs);
  let results = (outs Fusec_BoolTensor:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:`
    custom<OperandTypes>(type($lhs), type($rhs))
  }];
  let hasFolder = 1;
}

def Fusec_SelectOp : Fusec_Op<"select",
    Fusec_Properties<"Elementwise", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Elementwise choice with broadcasting";
  let description = [{
    `condition ? true_value : false_value` per element; the three operands
    broadcast together. The value chosen is passed through bit-exactly.

    ```mlir
    %r = fusec.select %m, %a, %b : tensor<4xi1>, tensor<4xf32>
    ```
  }];
  let arguments = (ins Fusec_BoolTensor:$condition, Fusec_Tensor:$true_value,
                   Fusec_Tensor:$false_value);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $true_value `,` $false_value attr-dict `:`
    type($condition) `,` custom<OperandTypes>(type($true_value),
                                              type($false_value))
  }];
  let hasFolder = 1;
}

def Fusec_CastOp : Fusec_Op<"cast",
    Fusec_Properties<"Elementwise", "Fixed", "Cheap">> {
  let summary = "Element type conversion";
  let description = [{
    Converts each element to the result's element type; the shape is kept.

    * float to narrower float, integer to float: round to nearest, ties to
      even, in a single rounding; overflow gives infinities.
    * float to integer: round to nearest, ties to even, then saturate to the
      integer's range; NaN becomes 0.
    * integer to narrower integer: wrap (keep the low bits); widening sign
      extends; `i1` converts to 0 or 1.
    * anything to `i1`: `x != 0` (so NaN becomes 1).

    ```mlir
    %h = fusec.cast %x : tensor<4xf32> to tensor<4xf16>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape operations
//===----------------------------------------------------------------------===//

def Fusec_ReshapeOp : Fusec_Op<"reshape",
    Fusec_Properties<"Index", "Clear", "Cheap">> {
  let summary = "Reinterpret the row-major elements with a new shape";
  let description = [{
    Same elements in the same row-major order, new shape with the same
    element count and element type.

    ```mlir
    %1 = fusec.reshape %0 : tensor<2x3xf32> -> tensor<6xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
  let hasVerifier = 1;
}

def Fusec_TransposeOp : Fusec_Op<"transpose",
    Fusec_Properties<"Index", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Permute dimensions";
  let description = [{
    Result dimension `d` is input dimension `permutation[d]`:
    `result[i_0, ..., i_last] = input[j]` with `j[permutation[d]] = i_d`.
    `permutation` must be a permutation of `0 .. rank-1`.

    ```mlir
    %1 = fusec.transpose %0, [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
}

def Fusec_BroadcastToOp : Fusec_Op<"broadcast_to",
    Fusec_Properties<"Index", "Clear", "Cheap">> {
  let summary = "Broadcast to a larger shape";
  let description = [{
    NumPy broadcasting of `input` to the result shape: the input's
    dimensions align with the trailing result dimensions and each must equal
    the result dimension or be 1; leading result dimensions are new.

    ```mlir
    %1 = fusec.broadcast_to %0 : tensor<3xf32> -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
  let hasVerifier = 1;
}

def Fusec_ConcatOp : Fusec_Op<"concat",
    Fusec_Properties<"Index", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Concatenate along an axis";
  let description = [{
    Joins one or more tensors of the same rank and element type along
    `axis`; all other dimensions must be equal. Operands may be empty along
    the axis.

    ```mlir
    %2 = fusec.concat %0, %1 axis = 0 : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<6x3xf32>
    ```
  }];
  let arguments = (ins Variadic<Fusec_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = [{
    $inputs `axis` `=` $axis attr-dict `:` type($inputs) `->` type($result)
  }];
  let hasFolder = 1;
}

// Several results: a kernel boundary (fusec-fold-concat-split removes it
// where a concat undoes it).
def Fusec_SplitOp : Fusec_Op<"split",
    Fusec_Properties<"Boundary", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Split along an axis into consecutive pieces";
  let description = [{
    Cuts `input` along `axis` into pieces of the given `sizes` (which must
    sum to the dimension; zero sizes are allowed), in order. The inverse of
    `concat`.

    ```mlir
    %a, %b = fusec.split %0 axis = 0 sizes = [2, 4] : tensor<6x3xf32> -> tensor<2x3xf32>, tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input, I64Attr:$axis,
                   DenseI64ArrayAttr:$sizes);
  let results = (outs Variadic<Fusec_Tensor>:$results);
  let assemblyFormat = [{
    $input `axis` `=` $axis `sizes` `=` $sizes attr-dict `:` type($input)
    `->` type($results)
  }];
  let hasFolder = 1;
}

def Fusec_SliceOp : Fusec_Op<"slice",
    Fusec_Properties<"Index", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Strided sub-tensor with static bounds";
  let description = [{
    `result[i] = input[start + i * stride]` in every dimension, for
    `0 <= i < size`. Requires `0 <= start`, `stride >= 1`, `size >= 0` and,
    when `size > 0`, `start + (size - 1) * stride < dim`. The lists are
    written in the order start, size, stride, as `tensor.extract_slice` does.

    ```mlir
    %1 = fusec.slice %0 [0, 1] [2, 2] [1, 1] : tensor<4x4xf32> -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input, DenseI64ArrayAttr:$start,
                   DenseI64ArrayAttr:$size, DenseI64ArrayAttr:$stride);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = [{
    $input $start $size $stride attr-dict `:` type($input) `->` type($result)
  }];
  let hasFolder = 1;
  let hasCanonicalizeMethod = 1;
}

def Fusec_GatherOp : Fusec_Op<"gather",
    Fusec_Properties<"Index", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "Select slices along an axis by run-time indices";
  let description = [{
    `result[p..., j..., q...] = input[p..., k, q...]` with `p` the
    dimensions before `axis`, `j` the indices' dimensions and `q` those
    after, and `k = indices[j...]`: an embedding lookup (axis 0) or an
    index select. The result shape is `input[:axis] ++ indices ++
    input[axis+1:]`. Indices are `i32` or `i64`; a negative index counts
    from the end (`k + dim`), and an index still outside `[0, dim)` is
    clamped to it (defined behaviour, as XLA's gather: no read outside the
    input). The axis must not be empty unless the result is.

    ```mlir
    %e = fusec.gather %table, %tokens axis = 0 : (tensor<50257x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input,
                   Fusec_TensorOf<[I32, I64]>:$indices, I64Attr:$axis);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $indices `axis` `=` $axis attr-dict `:`
    functional-type(operands, results)
  }];
  let hasFolder = 1;
}

// Cheap: ten rounds of integer multiplies cost less than a round trip of
// the numbers through memory, so kernels that need them draw them again.
def Fusec_RandomUniformOp : Fusec_Op<"random_uniform",
    Fusec_Properties<"Index", "Fixed", "Cheap">> {
  let summary = "Counter-based uniform random numbers (Philox 4x32-10)";
  let description = [{
    Element `i` (row-major) of the result is a uniform float in `[0, 1)`
    drawn by Philox 4x32-10, the generator of cuRAND and of PyTorch's CUDA
    dropout: word `i % 4` of the block that encrypts the counter
    `(b mod 2^32, b / 2^32, key[1], 0)`, `b = i / 4`, under the key
    `(key[0], stream)`, its top 24 bits times `2^-24` (so every value is
    exact in f32 and `1.0` never occurs). `key` holds two `i32`, read as
    unsigned: the seed and the step; `stream` (its low 32 bits) tells apart
    the tensors drawn in one step (the ONNX importer gives each Dropout its
    node's position).

    Pure: the same key, stream and shape give the same tensor on the
    interpreter, the host device and a GPU, in any order of computation, so
    a dropout mask is recomputed identically for the backward pass and a
    resumed training run draws what the uninterrupted one drew. Element
    `i`'s value does not depend on the result's shape, only on `i`.

    ```mlir
    %u = fusec.random_uniform %key stream = 3 : tensor<2xi32> -> tensor<8x128xf32>
    ```
  }];
  let arguments = (ins Fusec_TensorOf<[I32]>:$key, I64Attr:$stream);
  let results = (outs Fusec_TensorOf<[F32]>:$result);
  let assemblyFormat = [{
    $key `stream` `=` $stream attr-dict `:` type($key) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Fusec_PadOp : Fusec_Op<"pad",
    Fusec_Properties<"Index", "Clear", "Cheap">, [InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<Fusec_DifferentiableOpInterface,
                              ["notDifferentiable"]>]> {
  let summary = "Pad with a constant, a reflection or the edge values";
  let description = [{
    Adds `low[d]` elements before and `high[d]` after each dimension `d`
    (both at least 0) and, in `constant` mode only, `interior[d]` elements
    between consecutive elements (as XLA's pad; omitted means none). Result
    dimension: `low + dim + max(dim - 1, 0) * interior + high`.

    * `constant` (the default): the new elements are `value` (an f64,
      default 0, converted to the element type as `cast` does; for integer
      and `i1` tensors it must be an integer the type holds exactly).
    * `reflect`: mirrored without repeating the edge, as NumPy's `reflect`
      and ONNX's `reflect`: `low` and `high` at most `dim - 1`.
    * `edge`: the first or last element repeated; needs `dim >= 1` where
      something is added.

    ```mlir
    %1 = fusec.pad %0 low = [0, 1, 1, 0] high = [0, 1, 1, 0] : tensor<1x4x4x3xf32> -> tensor<1x6x6x3xf32>
    %2 = fusec.pad %0 low = [0, 2, 2, 0] high = [0, 2, 2, 0] mode = reflect : tensor<1x4x4x3xf32> -> tensor<1x8x8x3xf32>
    %3 = fusec.pad %x low = [1] high = [0] interior = [2] value = -1.0 : tensor<3xf32> -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input, DenseI64ArrayAttr:$low,
                   DenseI64ArrayAttr:$high,
                   OptionalAttr<DenseI64ArrayAttr>:$interior,
                   DefaultValuedAttr<Fusec_PadMode,
                       "::fusec::PadMode::constant">:$mode,
                   DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs Fusec_Tensor:$result);
  let assemblyFormat = [{
    $input `low` `=` $low `high` `=` $high (`interior` `=` $interior^)?
    (`mode` `=` $mode^)? (`value` `=` $value^)? attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasFolder = 1;
}

def Fusec_PatchesOp : Fusec_Op<"patches",
    Fusec_Properties<"Index", "Clear", "Cheap">, [InferTypeOpAdaptor]> {
  let summary = "The sliding windows of an NHWC tensor (im2col)";
  let description = [{
    For an input `[N, H, W, C]`, a `window = [KH, KW]`, `strides = [SH, SW]`
    and `dilations = [DH, DW]` (all at least 1), the result
    `[N, OH, OW, KH, KW, C]` holds every window:
    `result[n, i, j, p, q, c] = input[n, i * SH + p * DH, j * SW + q * DW, c]`
    with `OH = (H - (KH - 1) * DH - 1) / SH + 1` (and `OW` alike); the
    dilated window must fit (pad first). Convolutions and pooling lower to
    it (`fusec-lower-windows`): it fuses into the kernel that reads it as
    index arithmetic, as the gather of an implicit GEMM.

    ```mlir
    %p = fusec.patches %x window = [3, 3] strides = [1, 1] dilations = [1, 1] : tensor<1x6x6x8xf32> -> tensor<1x4x4x3x3x8xf32>
    ```
  }];
  let arguments = (ins Fusec_Tensor:$input, DenseI64ArrayAttr:$window,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations);
  let results = (outs Fusec_Tensor:$result);
  let extraClassDeclaration = [{
    /// The window's placement, without padding (verified).
    ::fusec::Window2D getWindow2D();
  }];
  let assemblyFormat = [{
    $input `window` `=` $window `strides` `=` $strides `dilations` `=`
    $dilations attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Fusec_ReduceOp<string mnemonic, Type type, string what,
                     string combiner>
    : Fusec_Op<mnemonic, Fusec_Properties<"Reduction", "Deny", "Cheap">,
               [InferTypeOpAdaptor, Fusec_ReductionOpInterface]> {
  let extraClassDeclaration = [{
    static constexpr ::fusec::ReductionCombiner kCombiner =
        ::fusec::ReductionCombiner::}] # combiner # [{;
  }];
  let summary = what # " over axes";
  let arguments = (ins type:$input, DenseI64ArrayAttr:$axes,
                   UnitAttr:$keep_dims);
  let results = (outs type:$result);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keep_dims` $keep_dims^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasFolder = 1;
}

def Fusec_ReduceSumOp : Fusec_ReduceOp<"reduce_sum", Fusec_NumericTensor,
    "Sum", "Sum"> {
  let description = [{
    Sums over `axes` (strictly increasing, each in `[0, rank)`). The result
    drops the reduced dimensions, or keeps them as 1 with `keep_dims`. Floats
    accumulate in f64 in row-major order and round once; integers wrap. An
    empty reduction gives 0.

    ```mlir
    %s = fusec.reduce_sum %x axes = [1] keep_dims : tensor<4x3xf32> -> tensor<4x1xf32>
    ```
  }];
}

def Fusec_ReduceMaxOp : Fusec_ReduceOp<"reduce_max", Fusec_NumericTensor,
    "Maximum", "Max"> {
  let description = [{
    Maximum over `axes`, with the NaN and signed-zero rules of `fusec.max`.
    An empty reduction gives `-inf` (floats) or the smallest integer.

    The result is the same either way; `pooling` decides the gradient where
    several elements equal the maximum. Without it they share the gradient
    equally (as `torch.amax` and TensorFlow's `reduce_max` do); with it, the
    first of them in row-major order over `axes` (or the first NaN) receives
    all of it, as the max pooling of PyTorch and XLA does. Max pooling and
    global max pooling lower to a `pooling` reduction.

    ```mlir
    %m = fusec.reduce_max %p axes = [3, 4] pooling : tensor<1x2x2x3x3x8xf32> -> tensor<1x2x2x8xf32>
    ```
  }];
  let arguments = (ins Fusec_NumericTensor:$input, DenseI64ArrayAttr:$axes,
                   UnitAttr:$keep_dims, UnitAttr:$pooling);
  let assemblyFormat = [{
    $input `axes` `=` $axes (`keep_dims` $keep_dims^)? (`pooling` $pooling^)?
    attr-dict `:` type($input) `->` type($result)
  }];
}

def Fusec_ReduceMinOp : Fusec_ReduceOp<"reduce_min", Fusec_NumericTensor,
    "Minimum", "Min"> {
  let description = [{
    Minimum over `axes`, with the NaN and signed-zero rules of `fusec.min`.
    An empty reduction gives `+inf` (floats) or the largest integer.
  }];
}

def Fusec_ReduceProdOp : Fusec_ReduceOp<"reduce_prod", Fusec_NumericTensor,
    "Product", "Prod"> {
  let description = [{
    Product over `axes`. Floats multiply in f64 in row-major order and round
    once (so an f32 product overflows only if the exact product does);
    integers wrap. An empty reduction gives 1. Never computed in f16/bf16 by
    `fusec-mixed-precision` (a product of a few dozen elements leaves their
    range).
  }];
}

def Fusec_ReduceMeanOp : Fusec_ReduceOp<"reduce_mean", Fusec_FloatTensor,
    "Arithmetic mean", "Mean"> {
  let description = [{
    The f64 sum (as `reduce_sum`) divided by the number of reduced elements,
    rounded once; an empty reduction gives NaN.
  }];
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

def Fusec_MatmulOp : Fusec_Op<"matmul",
    Fusec_Properties<"Boundary", "Allow", "Cheap">,
    [InferTypeOpAdaptorWithIsCompatible]> {
  let summary = "Batched matrix product";
  let description = [{
    `lhs [..., M, K] x rhs [..., K, N] -> [..., M, N]` for operands of rank
    at least 2 and the same element type. Leading (batch) dimensions
    broadcast like NumPy's `matmul`. Floats: products and sums in f64, summed
    over K in order, rounded once. Integers wrap.

    The result has the operands' element type, except that f16 and bf16
    operands may give an f32 result: the product of low-precision operands
    returned with its f32 accumulation (what `fusec-mixed-precision`
    produces; on a GPU, cuBLASLt with 32-bit compute and an f32 output).

    ```mlir
    %y = fusec.matmul %x, %w : tensor<8x16x32xf16>, tensor<32x64xf16> -> tensor<8x16x64xf16>
    %z = fusec.matmul %a, %b : tensor<4x8xbf16>, tensor<8x2xbf16> -> tensor<4x2xf32>
    ```
  }];
  let arguments = (ins Fusec_NumericTensor:$lhs, Fusec_NumericTensor:$rhs);
  let results = (outs Fusec_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Window operations: convolution and pooling on NHWC tensors
//===----------------------------------------------------------------------===//

// The geometry common to the window operations: `padding` is
// [top, bottom, left, right], `strides` and `dilations` [height, width].
// They are lowered by fusec-lower-windows before mixed precision, training
// and fusion, so those never see them (a boundary if they did).
class Fusec_WindowOp<string mnemonic, string precision>
    : Fusec_Op<mnemonic, Fusec_Properties<"Boundary", precision, "Cheap">,
               [InferTypeOpAdaptor], /*differentiable=*/0> {
  let extraClassDeclaration = [{
    /// The window's placement (verified: every entry in range).
    ::fusec::Window2D getWindow2D();
  }];
}

def Fusec_Conv2DOp : Fusec_WindowOp<"conv2d", "Allow"> {
  let summary = "2-D convolution of an NHWC tensor, grouped and dilated";
  let description = [{
    `input [N, H, W, C]` convolved (cross-correlated, as every framework
    does) with `filter [KH, KW, C / groups, F]` (HWIO; `groups` divides
    both `C` and `F`, `F / groups` filters per group), plus the optional
    `bias [F]`. With `padding = [top, bottom, left, right]` of zeros:

    `result[n, i, j, f] = bias[f] + sum over p, q, c of
    padded[n, i * SH + p * DH, j * SW + q * DW, g * C / groups + c] *
    filter[p, q, c, f]` with `g = f / (F / groups)`.

    `OH = (H + top + bottom - (KH - 1) * DH - 1) / SH + 1`, `OW` alike.
    Floats only, one element type. Products and sums in f64, in the order
    `p`, `q`, `c` (a matmul's order over the patches), rounded once to the
    element type; the bias is then added in the compute type. Padding zeros
    take part in the products (`0 * inf` is NaN, as in an im2col lowering).
    `groups == C` is a depthwise convolution (`F / C` filters per channel).

    ```mlir
    %y = fusec.conv2d %x, %w, %b strides = [2, 2] dilations = [1, 1] padding = [3, 3, 3, 3] : (tensor<1x224x224x3xf32>, tensor<7x7x3x64xf32>, tensor<64xf32>) -> tensor<1x112x112x64xf32>
    %d = fusec.conv2d %x, %k strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] groups = 32 : (tensor<1x56x56x32xf32>, tensor<3x3x1x32xf32>) -> tensor<1x56x56x32xf32>
    ```
  }];
  let arguments = (ins Fusec_FloatTensor:$input, Fusec_FloatTensor:$filter,
                   Optional<Fusec_FloatTensor>:$bias,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$padding,
                   DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs Fusec_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? `strides` `=` $strides `dilations` `=`
    $dilations `padding` `=` $padding (`groups` `=` $groups^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

class Fusec_Pool2DOp<string mnemonic, Type type, string precision>
    : Fusec_WindowOp<mnemonic, precision> {
  let results = (outs type:$result);
  let assemblyFormat = [{
    $input `window` `=` $window `strides` `=` $strides `dilations` `=`
    $dilations `padding` `=` $padding attr-dict `:` type($input) `->`
    type($result)
  }];
}

def Fusec_MaxPool2DOp : Fusec_Pool2DOp<"max_pool2d", Fusec_NumericTensor,
    "Clear"> {
  let summary = "2-D max pooling of an NHWC tensor";
  let description = [{
    The maximum of each `window = [KH, KW]` of `input [N, H, W, C]` (with
    the NaN and signed-zero rules of `fusec.max`), per channel, the window
    placed as in `conv2d`. Padding elements are `-inf` (the smallest
    integer for integers): a window entirely in the padding gives that.

    ```mlir
    %y = fusec.max_pool2d %x window = [3, 3] strides = [2, 2] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<1x112x112x64xf32> -> tensor<1x56x56x64xf32>
    ```
  }];
  let arguments = (ins Fusec_NumericTensor:$input, DenseI64ArrayAttr:$window,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$padding);
}

def Fusec_AvgPool2DOp : Fusec_Pool2DOp<"avg_pool2d", Fusec_FloatTensor,
    "Deny"> {
  let summary = "2-D average pooling of an NHWC tensor";
  let description = [{
    The mean of each window, placed as in `max_pool2d`: the f64 sum of the
    window divided by `KH * KW` with `count_include_pad` (padding counts as
    zeros), else by the number of elements inside the input, rounded once;
    a window entirely in the padding is then NaN (0 / 0).

    ```mlir
    %y = fusec.avg_pool2d %x window = [3, 3] strides = [1, 1] dilations = [1, 1] padding = [1, 1, 1, 1] : tensor<1x8x8x4xf32> -> tensor<1x8x8x4xf32>
    ```
  }];
  let arguments = (ins Fusec_FloatTensor:$input, DenseI64ArrayAttr:$window,
                   DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$dilations,
                   DenseI64ArrayAttr:$padding, UnitAttr:$count_include_pad);
  let assemblyFormat = [{
    $input `window` `=` $window `strides` `=` $strides `dilations` `=`
    $dilations `padding` `=` $padding (`count_include_pad` $count_include_pad^)?
    attr-dict `:` type($input) `->` type($result)
  }];
}

//===----------------------------------------------------------------------===//
// Fusion regions
//===----------------------------------------------------------------------===//

def Fusec_FusionOp : Fusec_Op<"fusion",
    Fusec_Properties<"Boundary", "Fixed", "Cheap">,
    [IsolatedFromAbove, SingleBlock], /*differentiable=*/0> {
  let summary = "A group of operations compiled into one GPU kernel";
  let description = [{
    The operations of the body run as one kernel: values defined inside never
    leave registers (or shared memory) unless yielded. The body is isolated
    from above; its block arguments are the `inputs`, in order, and
    `fusec.yield` returns the `results`. A fusion with several results is a
    multi-output fusion: every result is written in the same pass.

    Semantically a fusion is exactly its body: the reference interpreter
    evaluates the body operation by operation, so fusing never changes what
    a program computes. Fusions are formed by `fusec-fuse-elementwise`; the
    body may hold any fusec operation except another fusion.

    Its `kind`, decided by the fusion planner and read by code generation,
    says what kernel it becomes (written after the op name; `loop` is the
    default and is not printed), and the verifier checks that the body fits
    it:

    * `loop`: elementwise work and index arithmetic, no reduction or matmul:
      a grid-stride loop over the outputs.
    * `row_reduction`: exactly one reduction, of the innermost dimensions
      with rows of more than one element: one block per row, the epilogue
      (consumers of the reduced value) after the reduction.
    * `reduction`: exactly one reduction of another kind: one thread per
      output.
    * `matmul`: one `fusec.matmul` and what cuBLASLt computes with it, in
      this order: transposes of the last two dimensions of its operands
      (read through the transpose flags), an optional cast of an f32 product
      to the operands' f16/bf16 type, an optional `add` of a bias broadcast
      along the rows (its value varies along the last dimension only), an
      optional `relu` or tanh `gelu`, an optional final cast to f16/bf16;
      each one's only user is the next, and the last is the only result.

    ```mlir
    %r:2 = fusec.fusion row_reduction (%x, %b) : (tensor<8x16xf32>, tensor<16xf32>)
        -> (tensor<8x16xf32>, tensor<8xf32>) {
    ^bb0(%a0: tensor<8x16xf32>, %a1: tensor<16xf32>):
      %0 = fusec.add %a0, %a1 : tensor<8x16xf32>, tensor<16xf32>
      %1 = fusec.exp %0 : tensor<8x16xf32>
      %2 = fusec.reduce_sum %1 axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
      fusec.yield %1, %2 : tensor<8x16xf32>, tensor<8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Fusec_Tensor>:$inputs,
                       DefaultValuedAttr<Fusec_FusionKindAttr,
                                         "::fusec::FusionKind::Loop">:$kind);
  let results = (outs Variadic<Fusec_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The terminator of the body.
    YieldOp getYield();
    /// The one reduction of a reduction or row_reduction fusion, the one
    /// matmul of a matmul fusion; null for a loop fusion.
    ::mlir::Operation *getAnchor();
  }];
}

def Fusec_YieldOp : Op<Fusec_Dialect, "yield", [Pure, Terminator,
                                               HasParent<"FusionOp">]> {
  let summary = "Returns the results of a fusion";
  let description = [{
    Terminates the body of a `fusec.fusion`; its operands become the
    fusion's results, in order.
  }];
  let arguments = (ins Variadic<Fusec_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif // FUSEC_OPS
