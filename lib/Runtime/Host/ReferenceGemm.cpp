//===- ReferenceGemm.cpp - cublasLtMatmul on the CPU ----------------------===//
//
// A literal reading of the call: every element is addressed through its
// layout, so nothing here knows how describeMatmul arranged the product.
// Speed does not matter (the host runtime's products are small and the
// tests' smaller); clarity of the semantics does.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Host/ReferenceGemm.h"

#include "fusec/Support/Float16.h"

#include <cmath>
#include <cstdint>

using namespace fusec;
using namespace fusec::rt;

namespace {

/// Element `i` of an array of `type`, exactly, as a double.
double load(BlasDataType type, const void *base, int64_t i) {
  switch (type) {
  case BlasDataType::R32F:
    return static_cast<const float *>(base)[i];
  case BlasDataType::R16F:
    return halfToFloat(static_cast<const uint16_t *>(base)[i]);
  case BlasDataType::R16BF:
    return bf16ToFloat(static_cast<const uint16_t *>(base)[i]);
  }
  return 0.0;
}

/// Stores `v` rounded once, to nearest even, to `type`.
void storeDouble(BlasDataType type, void *base, int64_t i, double v) {
  switch (type) {
  case BlasDataType::R32F:
    static_cast<float *>(base)[i] = float(v);
    return;
  case BlasDataType::R16F:
    static_cast<uint16_t *>(base)[i] = doubleToHalf(v);
    return;
  case BlasDataType::R16BF:
    static_cast<uint16_t *>(base)[i] = doubleToBF16(v);
    return;
  }
}

void storeFloat(BlasDataType type, void *base, int64_t i, float v) {
  switch (type) {
  case BlasDataType::R32F:
    static_cast<float *>(base)[i] = v;
    return;
  case BlasDataType::R16F:
    static_cast<uint16_t *>(base)[i] = floatToHalf(v);
    return;
  case BlasDataType::R16BF:
    static_cast<uint16_t *>(base)[i] = floatToBF16(v);
    return;
  }
}

/// Index of element (row, col) of batch element `batch` of a matrix with
/// layout `l`, in elements from the matrix's base pointer.
int64_t elementIndex(const BlasLayout &l, int64_t batch, int64_t row,
                     int64_t col) {
  int64_t inMatrix =
      l.order == BlasOrder::Col ? row + col * l.ld : row * l.ld + col;
  return batch * l.batchStride + inMatrix;
}

/// Element (row, col) of op(X), X of layout `l`.
double loadOp(const BlasLayout &l, BlasOp op, const void *base, int64_t batch,
              int64_t row, int64_t col) {
  return op == BlasOp::N ? load(l.type, base, elementIndex(l, batch, row, col))
                         : load(l.type, base, elementIndex(l, batch, col, row));
}

} // namespace

void fusec::rt::runReferenceGemm(const MatmulCall &call, const void *a,
                                 const void *b, void *d, const void *bias) {
  // op(A) is rows(D) x K, op(B) is K x cols(D).
  int64_t rows = call.d.rows, cols = call.d.cols;
  int64_t k = call.transa == BlasOp::N ? call.a.cols : call.a.rows;
  bool hasBias = blasEpilogueHasBias(call.epilogue);
  bool relu = call.epilogue == BlasEpilogue::Relu ||
              call.epilogue == BlasEpilogue::ReluBias;
  bool gelu = call.epilogue == BlasEpilogue::Gelu ||
              call.epilogue == BlasEpilogue::GeluBias;
  // The single rounding of fusec.matmul applies only where nothing is
  // computed after the sum.
  bool roundOnce = call.epilogue == BlasEpilogue::Default &&
                   call.alpha == 1.0f && call.beta == 0.0f;
  for (int64_t batch = 0; batch < int64_t(call.d.batchCount); ++batch) {
    for (int64_t col = 0; col < cols; ++col) {
      for (int64_t row = 0; row < rows; ++row) {
        double sum = k ? -0.0 : 0.0;
        for (int64_t p = 0; p < k; ++p)
          sum += loadOp(call.a, call.transa, a, batch, row, p) *
                 loadOp(call.b, call.transb, b, batch, p, col);
        int64_t at = elementIndex(call.d, batch, row, col);
        if (roundOnce) {
          storeDouble(call.d.type, d, at, sum);
          continue;
        }
        float x = call.alpha * float(sum);
        if (call.beta != 0.0f) // With beta = 0, C is not read (cuBLAS).
          x += call.beta * float(load(call.c.type, d,
                                      elementIndex(call.c, batch, row, col)));
        if (hasBias)
          x += float(
              load(call.biasType, bias, batch * call.biasBatchStride + row));
        if (relu)
          x = epilogueRelu(x);
        if (gelu)
          x = epilogueGelu(x);
        storeFloat(call.d.type, d, at, x);
      }
    }
  }
}
