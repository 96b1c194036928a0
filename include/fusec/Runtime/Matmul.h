//===- Matmul.h - Matrix products as cuBLASLt calls -------------*- C++ -*-===//
//
// The contract between a MatmulStep of the executable and cuBLASLt, written
// without CUDA so that it is tested on any machine: which steps cuBLASLt
// computes (checkMatmulStep, which the artifact reader calls), and the exact
// cublasLtMatmul calls that compute one (describeMatmul). A GPU runtime
// turns each MatmulCall into descriptors attribute by attribute; the host
// runtime and the tests run the same calls through the reference GEMM of
// fusec/Runtime/Host/ReferenceGemm.h, so the description itself is what is
// tested.
//
// How a row-major product becomes a column-major call. cuBLASLt's matrices
// are column-major here. A row-major [R, C] matrix is, byte for byte, the
// column-major [C, R] matrix with leading dimension C: its transpose. So
// c = a @ b is computed as c^T = b^T @ a^T, the column-major product with
// the operands swapped (as XLA does): cuBLAS "A" is our b, cuBLAS "B" is our
// a, and D is c seen as column-major [N, M] with leading dimension N. Every
// layout is CUBLASLT_ORDER_COL; a transpose flag of ours becomes the op flag
// of the matching cuBLAS operand. This is also what makes the bias epilogues
// legal (cuBLASLt rejects them for a row-major D) and what makes the bias,
// one value per column of c, one value per row of D, as cuBLASLt adds it.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_MATMUL_H
#define FUSEC_RUNTIME_MATMUL_H

#include "fusec/Runtime/Executable.h"
#include "fusec/Support/DType.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fusec::rt {

//===----------------------------------------------------------------------===//
// Mirrors of the cuBLASLt enums
//===----------------------------------------------------------------------===//

// Each enumerator has exactly the value of the cuBLAS / CUDA constant of the
// same name (library_types.h, cublas_api.h, cublasLt.h), so that a GPU
// runtime passes them with a cast; test/Unit/MatmulTest.cpp static_asserts
// the values wherever cublasLt.h is available.

/// cudaDataType_t: CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF.
enum class BlasDataType : int32_t { R32F = 0, R16F = 2, R16BF = 14 };

/// cublasComputeType_t: CUBLAS_COMPUTE_32F, the only one used (f32
/// accumulation, no TF32 down-conversion of f32 operands).
enum class BlasComputeType : int32_t { F32 = 68 };

/// cublasOperation_t: CUBLAS_OP_N, CUBLAS_OP_T.
enum class BlasOp : int32_t { N = 0, T = 1 };

/// cublasLtOrder_t: CUBLASLT_ORDER_COL, CUBLASLT_ORDER_ROW.
enum class BlasOrder : int32_t { Col = 0, Row = 1 };

/// cublasLtEpilogue_t: CUBLASLT_EPILOGUE_DEFAULT, _RELU, _BIAS, _RELU_BIAS,
/// _GELU, _GELU_BIAS (gelu is the tanh approximation).
enum class BlasEpilogue : uint32_t {
  Default = 1,
  Relu = 2,
  Bias = 4,
  ReluBias = 6,
  Gelu = 32,
  GeluBias = 36,
};

/// The cuBLAS spellings: "CUDA_R_32F", "CUBLAS_COMPUTE_32F", "CUBLAS_OP_T",
/// "CUBLASLT_ORDER_COL", "CUBLASLT_EPILOGUE_GELU_BIAS" ("invalid" for a
/// value that is none of the enumerators).
const char *blasDataTypeName(BlasDataType type);
const char *blasComputeTypeName(BlasComputeType type);
const char *blasOpName(BlasOp op);
const char *blasOrderName(BlasOrder order);
const char *blasEpilogueName(BlasEpilogue epilogue);

/// The cuBLAS data type of a fusec element type: f32, f16 and bf16 have
/// one, the others none.
std::optional<BlasDataType> blasDataTypeOf(DType type);

/// Bytes of one element of `type` (0 for an invalid value).
size_t blasDataTypeSize(BlasDataType type);

/// The cuBLASLt epilogue that computes `epilogue` (the value of an invalid
/// one is unspecified; checkMatmulStep rejects those).
BlasEpilogue blasEpilogueOf(MatmulEpilogue epilogue);

/// Whether the epilogue reads a bias vector (its CUBLASLT_EPILOGUE_BIAS
/// bit).
constexpr bool blasEpilogueHasBias(BlasEpilogue epilogue) {
  return (uint32_t(epilogue) & uint32_t(BlasEpilogue::Bias)) != 0;
}

/// Many cuBLASLt kernels launch one grid slice per batch element and fail
/// beyond this batch count, so larger batches are split into several calls.
inline constexpr int64_t kMaxBatchCount = 65535;

/// The most cublasLtMatmul calls one step may need (checkMatmulStep).
inline constexpr int64_t kMaxMatmulCalls = 65536;

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

/// The attributes of one cublasLtMatrixLayout_t. Element (i, j) of batch
/// element k lies at `base[k * batchStride + i + j * ld]` for
/// BlasOrder::Col (`base[k * batchStride + i * ld + j]` for Row), counted
/// in elements of `type`. Rows, columns and the leading dimension fit
/// int32_t (checkMatmulStep guarantees it; cuBLASLt supports no more).
struct BlasLayout {
  BlasDataType type = BlasDataType::R32F; // CUBLASLT_MATRIX_LAYOUT_TYPE
  BlasOrder order = BlasOrder::Col;       // _ORDER
  int64_t rows = 0;                       // _ROWS (uint64_t in cuBLASLt)
  int64_t cols = 0;                       // _COLS (uint64_t in cuBLASLt)
  int64_t ld = 1;                         // _LD
  int32_t batchCount = 1;                 // _BATCH_COUNT
  int64_t batchStride = 0;                // _STRIDED_BATCH_OFFSET
};

/// Where a matrix or vector of a call lies: the bytes of executable buffer
/// `buffer` (the step's own index, which may be an alias: its data are the
/// bytes of the buffer it views) from `byteOffset` on.
struct BlasOperand {
  int64_t buffer = -1;
  int64_t byteOffset = 0;
};

/// One cublasLtMatmul call, completely described:
///   D = epilogue(alpha * op(A) op(B) + beta * C [+ bias, one per row of D])
/// batched with the layouts' strides. C is D (same layout, same memory) and
/// beta is 0, so C is never read; alpha is 1.
struct MatmulCall {
  BlasComputeType computeType = BlasComputeType::F32; // _DESC_COMPUTE_TYPE
  BlasDataType scaleType = BlasDataType::R32F;        // _DESC_SCALE_TYPE
  BlasOp transa = BlasOp::N;                          // _DESC_TRANSA
  BlasOp transb = BlasOp::N;                          // _DESC_TRANSB
  BlasLayout a, b, c, d;
  float alpha = 1.0f, beta = 0.0f;
  BlasEpilogue epilogue = BlasEpilogue::Default; // _DESC_EPILOGUE
  /// CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE; meaningful with a bias epilogue.
  BlasDataType biasType = BlasDataType::R32F;
  /// CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: always 0, every batch element
  /// adds the same bias.
  int64_t biasBatchStride = 0;
  /// The operands' memory; `biasData.buffer` is -1 without a bias epilogue.
  BlasOperand aData, bData, dData, biasData;
};

/// Whether cuBLASLt computes `step` of `exe`; if not, sets `error` to the
/// reason, without a prefix (the reader adds "step <i>: "). The rules:
///  * a, b and c (and bias when the epilogue has one) are existing buffers;
///    this is checked first, so that nothing else reads out of range;
///  * the epilogue is a valid value; an epilogue without a bias has
///    bias == -1; one with a bias names an existing buffer;
///  * a, b and c have rank 2 or more, and shapes whose element counts and
///    byte sizes fit int64 (checked here too, so that describeMatmul's
///    arithmetic cannot overflow whoever calls it);
///  * a and b have the same dtype, f32, f16 or bf16 (integer products are
///    no cuBLASLt computation: the compiler rewrites them);
///  * c's dtype is a's or f32 (the COMPUTE_32F type table: f16 -> f16/f32,
///    bf16 -> bf16/f32, f32 -> f32);
///  * a is [..., M, K] ([..., K, M] when transposeA), b is [..., K, N]
///    ([..., N, K] when transposeB), and the two K agree;
///  * the batch dimensions broadcast as in NumPy (aligned on the right,
///    missing ones 1, equal or one of them 1), and c is exactly
///    [broadcast batch..., M, N];
///  * M, N and K are at most INT32_MAX (cuBLASLt's rows, columns and
///    leading dimensions);
///  * the bias has exactly N elements (any shape), of c's dtype or f32;
///  * c does not share its bytes with a, b or the bias (being the same
///    buffer or a view of the same buffer): cuBLASLt does not compute in
///    place;
///  * the product takes at most kMaxMatmulCalls calls (matmulCallCount).
bool checkMatmulStep(const Executable &exe, const MatmulStep &step,
                     std::string &error);

/// The calls that compute `step`, a step that passed checkMatmulStep, in
/// the order to issue them (they write disjoint parts of c, so any order
/// gives the same result).
///
///  * A product with M, N or the broadcast batch empty writes nothing: no
///    call. A product with K = 0 and M, N > 0 is computed as usual (one
///    call per batch chunk): cuBLASLt's sum over an empty K is 0, to which
///    the epilogue adds the bias and applies its activation.
///  * Batch broadcasting uses a batch stride of 0 where one strided-batched
///    call expresses it: over the longest suffix of c's batch dimensions
///    on which each of a and b has either all of c's dimensions or only 1s.
///    The batch dimensions before that suffix are looped over here, one
///    call (or one chunk of calls) per outer index in row-major order, each
///    with the byte offsets of its matrices.
///  * A batch count above kMaxBatchCount is split into consecutive chunks
///    of at most kMaxBatchCount.
///  * A call with a batch count of 1 has batch strides 0.
///  * Leading dimensions are at least 1: cuBLASLt rejects 0, and a matrix
///    whose natural leading dimension is 0 (K = 0) has no elements, so the
///    value addresses nothing.
/// How many calls describeMatmul returns for `step` (its batch, split at
/// the dimensions one strided-batched call cannot express, and cut at
/// kMaxBatchCount), without building them. Expects a step whose shapes
/// passed checkMatmulStep.
int64_t matmulCallCount(const Executable &exe, const MatmulStep &step);

std::vector<MatmulCall> describeMatmul(const Executable &exe,
                                       const MatmulStep &step);

/// One line for `fusec-run --print-plan`, e.g.
///   cublasLt: D[5x3 col ld 5 f32 @2+0] = A[5x4 col ld 5 f16 @1+0]^N *
///   B[4x3 col ld 4 f16 @0+0]^N, GELU_BIAS bias f32 @3+0, batch 2 strides
///   A 0 B 12 D 15
/// where "@2+0" is buffer 2 from byte 0, "^N"/"^T" the op, and the
/// epilogue and batch parts are left out for DEFAULT and a batch of 1.
std::string describeCall(const MatmulCall &call);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_MATMUL_H
