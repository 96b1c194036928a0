//===- CudaBlas.cpp - A MatmulCall as cuBLASLt descriptors ----------------===//

#include "fusec/Runtime/Cuda/CudaBlas.h"

using namespace fusec::rt;
using namespace fusec::rt::cuda;

std::unique_ptr<BlasDescriptors> BlasDescriptors::create(const BlasLt &blas,
                                                         const MatmulCall &call,
                                                         uint64_t bias,
                                                         std::string &error) {
  std::unique_ptr<BlasDescriptors> out(new BlasDescriptors(blas));
  auto check = [&](cublasStatus_t status, const char *what) {
    if (status == CUBLAS_STATUS_SUCCESS)
      return true;
    error = std::string(what) + " failed: " + blas.describe(status);
    return false;
  };
  // The mirrors in Matmul.h have cuBLASLt's values (checked by MatmulTest).
  if (!check(blas.cublasLtMatmulDescCreate(
                 &out->operation, cublasComputeType_t(call.computeType),
                 cudaDataType_t(call.scaleType)),
             "cublasLtMatmulDescCreate"))
    return nullptr;
  auto setOp = [&](cublasLtMatmulDescAttributes_t attribute, const void *value,
                   size_t size, const char *name) {
    return check(blas.cublasLtMatmulDescSetAttribute(out->operation, attribute,
                                                     value, size),
                 name);
  };
  auto transa = cublasOperation_t(call.transa);
  auto transb = cublasOperation_t(call.transb);
  auto epilogue = cublasLtEpilogue_t(call.epilogue);
  if (!setOp(CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa,
             "setting CUBLASLT_MATMUL_DESC_TRANSA") ||
      !setOp(CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb,
             "setting CUBLASLT_MATMUL_DESC_TRANSB") ||
      !setOp(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue,
             "setting CUBLASLT_MATMUL_DESC_EPILOGUE"))
    return nullptr;
  if (blasEpilogueHasBias(call.epilogue)) {
    const void *pointer = reinterpret_cast<const void *>(bias);
    auto biasType = cudaDataType_t(call.biasType);
    int64_t stride = call.biasBatchStride;
    if (!setOp(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &pointer, sizeof pointer,
               "setting CUBLASLT_MATMUL_DESC_BIAS_POINTER") ||
        !setOp(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &biasType, sizeof biasType,
               "setting CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE") ||
        !setOp(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, &stride, sizeof stride,
               "setting CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE"))
      return nullptr;
  }
  auto layout = [&](const BlasLayout &l, cublasLtMatrixLayout_t &out) {
    if (!check(blas.cublasLtMatrixLayoutCreate(&out, cudaDataType_t(l.type),
                                               uint64_t(l.rows),
                                               uint64_t(l.cols), l.ld),
               "cublasLtMatrixLayoutCreate"))
      return false;
    auto order = cublasLtOrder_t(l.order);
    int32_t count = l.batchCount;
    int64_t stride = l.batchStride;
    return check(blas.cublasLtMatrixLayoutSetAttribute(
                     out, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order),
                 "setting CUBLASLT_MATRIX_LAYOUT_ORDER") &&
           check(blas.cublasLtMatrixLayoutSetAttribute(
                     out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                     sizeof count),
                 "setting CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT") &&
           check(blas.cublasLtMatrixLayoutSetAttribute(
                     out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
                     sizeof stride),
                 "setting CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET");
  };
  if (!layout(call.a, out->a) || !layout(call.b, out->b) ||
      !layout(call.c, out->c) || !layout(call.d, out->d))
    return nullptr;
  out->alpha = call.alpha;
  out->beta = call.beta;
  return out;
}

BlasDescriptors::~BlasDescriptors() {
  for (cublasLtMatrixLayout_t l : {a, b, c, d})
    if (l)
      blas.cublasLtMatrixLayoutDestroy(l);
  if (operation)
    blas.cublasLtMatmulDescDestroy(operation);
}
