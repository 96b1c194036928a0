//===- CudaBlas.h - A MatmulCall as cuBLASLt descriptors --------*- C++ -*-===//
//
// The one place where the tested description of a product (MatmulCall,
// fusec/Runtime/Matmul.h) becomes cuBLASLt objects: the operation
// descriptor (compute and scale type, op flags, epilogue, bias pointer and
// type) and the four matrix layouts, attribute by attribute. Creating them
// needs cuBLASLt but no GPU, so the test suite checks every attribute by
// reading it back wherever libcublasLt.so.13 is installed.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CUDA_CUDABLAS_H
#define FUSEC_RUNTIME_CUDA_CUDABLAS_H

#include "fusec/Runtime/Cuda/CudaLibraries.h"
#include "fusec/Runtime/Matmul.h"

#include <cstdint>
#include <memory>
#include <string>

namespace fusec::rt::cuda {

/// The descriptors of one cublasLtMatmul call, destroyed with the object.
class BlasDescriptors {
public:
  /// The descriptors of `call` with the bias at device address `bias` (0
  /// without a bias epilogue); nullptr with `error` naming the failed
  /// cuBLASLt call.
  static std::unique_ptr<BlasDescriptors> create(const BlasLt &blas,
                                                 const MatmulCall &call,
                                                 uint64_t bias,
                                                 std::string &error);
  ~BlasDescriptors();
  BlasDescriptors(const BlasDescriptors &) = delete;
  BlasDescriptors &operator=(const BlasDescriptors &) = delete;

  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
  /// alpha and beta, which cublasLtMatmul reads through pointers.
  float alpha = 1.0f, beta = 0.0f;

private:
  explicit BlasDescriptors(const BlasLt &blas) : blas(blas) {}
  const BlasLt &blas;
};

} // namespace fusec::rt::cuda

#endif // FUSEC_RUNTIME_CUDA_CUDABLAS_H
