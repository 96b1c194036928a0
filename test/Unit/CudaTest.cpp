//===- CudaTest.cpp - The CUDA device's parts that run without a GPU ------===//
//
// Which artifact runs on which GPU, and the translation of a matmul call
// into cuBLASLt descriptors: cuBLASLt creates descriptors without a GPU, so
// every attribute fusec sets is read back here and compared with the call,
// written by hand. A machine without libcublasLt.so.13 skips those tests.
// The driver's error paths (no library, the stub library) are process-wide
// and tested from the command line (test/Runtime/cuda-errors.test).
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cuda/CudaDevice.h"

#ifdef FUSEC_HAVE_CUDA_HEADERS
#include "fusec/Runtime/Cuda/CudaBlas.h"
#endif

#include <gtest/gtest.h>

using namespace fusec;
using namespace fusec::rt;

namespace {

TEST(CudaArch, ArtifactsRunOnTheirArchitectureAndNewer) {
  std::string error;
  EXPECT_TRUE(archRunsOn("sm_90", "sm_90", error)) << error;
  EXPECT_TRUE(archRunsOn("sm_80", "sm_90", error)) << error;
  EXPECT_TRUE(archRunsOn("sm_90", "sm_100", error)) << error;
  EXPECT_TRUE(archRunsOn("sm_90a", "sm_90", error)) << error;
  EXPECT_FALSE(archRunsOn("sm_100", "sm_90", error));
  EXPECT_EQ(error, "the model was compiled for sm_100, newer than the "
                   "device's sm_90 (recompile it with --gpu-arch=sm_90)");
  EXPECT_FALSE(archRunsOn("compute_90", "sm_90", error));
  EXPECT_EQ(error, "unknown target architecture 'compute_90'");
  EXPECT_FALSE(archRunsOn("sm_", "sm_90", error));
  EXPECT_FALSE(archRunsOn("sm_90x", "sm_90", error));
  EXPECT_EQ(smArch(9, 0), "sm_90");
  EXPECT_EQ(smArch(12, 1), "sm_121");
}

TEST(CudaArch, CubinsLoadOnlyOnTheirOwnArchitecture) {
  EXPECT_TRUE(loadsCubin("sm_90", true, "sm_90"));
  EXPECT_FALSE(loadsCubin("sm_90", false, "sm_90")); // None stored.
  EXPECT_FALSE(loadsCubin("sm_90", true, "sm_100")); // The PTX, compiled on.
  EXPECT_FALSE(loadsCubin("sm_80", true, "sm_86"));
  EXPECT_FALSE(loadsCubin("sm_90a", true, "sm_90"));
  EXPECT_FALSE(loadsCubin("sm_", true, "sm_"));
}

#ifdef FUSEC_HAVE_CUDA_HEADERS

using namespace fusec::rt::cuda;

const BlasLt *blasOrSkip() {
  std::string error;
  return BlasLt::get(error);
}

template <typename T>
T operationAttribute(const BlasLt &blas, cublasLtMatmulDesc_t d,
                     cublasLtMatmulDescAttributes_t a) {
  T value{};
  size_t written = 0;
  EXPECT_EQ(
      blas.cublasLtMatmulDescGetAttribute(d, a, &value, sizeof value, &written),
      CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(written, sizeof value);
  return value;
}

template <typename T>
T layoutAttribute(const BlasLt &blas, cublasLtMatrixLayout_t l,
                  cublasLtMatrixLayoutAttribute_t a) {
  T value{};
  size_t written = 0;
  EXPECT_EQ(blas.cublasLtMatrixLayoutGetAttribute(l, a, &value, sizeof value,
                                                  &written),
            CUBLAS_STATUS_SUCCESS);
  EXPECT_EQ(written, sizeof value);
  return value;
}

void expectLayout(const BlasLt &blas, cublasLtMatrixLayout_t l,
                  cudaDataType_t type, uint64_t rows, uint64_t cols, int64_t ld,
                  int32_t batch, int64_t stride) {
  EXPECT_EQ(layoutAttribute<int32_t>(blas, l, CUBLASLT_MATRIX_LAYOUT_TYPE),
            int32_t(type));
  EXPECT_EQ(layoutAttribute<int32_t>(blas, l, CUBLASLT_MATRIX_LAYOUT_ORDER),
            int32_t(CUBLASLT_ORDER_COL));
  EXPECT_EQ(layoutAttribute<uint64_t>(blas, l, CUBLASLT_MATRIX_LAYOUT_ROWS),
            rows);
  EXPECT_EQ(layoutAttribute<uint64_t>(blas, l, CUBLASLT_MATRIX_LAYOUT_COLS),
            cols);
  EXPECT_EQ(layoutAttribute<int64_t>(blas, l, CUBLASLT_MATRIX_LAYOUT_LD), ld);
  EXPECT_EQ(
      layoutAttribute<int32_t>(blas, l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT),
      batch);
  EXPECT_EQ(layoutAttribute<int64_t>(
                blas, l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET),
            stride);
}

TEST(CudaBlas, DescriptorsCarryEveryAttributeOfTheCall) {
  const BlasLt *blas = blasOrSkip();
  if (!blas)
    GTEST_SKIP() << "cuBLASLt is not installed here";
  // c[4,8,3] f16 = gelu(a[4,8,16]^T-flagged @ b[16,3] + bias f32), written
  // by hand as the column-major call: A is b (3x16, ld 3, op T), B is a
  // (16x8, ld 16), D is c (3x8, ld 3), a batch of 4 with b broadcast.
  MatmulCall call;
  call.transa = BlasOp::T;
  call.transb = BlasOp::N;
  call.a = {BlasDataType::R16F, BlasOrder::Col, 3, 16, 3, 4, 0};
  call.b = {BlasDataType::R16F, BlasOrder::Col, 16, 8, 16, 4, 128};
  call.d = {BlasDataType::R16F, BlasOrder::Col, 3, 8, 3, 4, 24};
  call.c = call.d;
  call.epilogue = BlasEpilogue::GeluBias;
  call.biasType = BlasDataType::R32F;
  std::string error;
  std::unique_ptr<BlasDescriptors> d =
      BlasDescriptors::create(*blas, call, 0x7000, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(operationAttribute<int32_t>(*blas, d->operation,
                                        CUBLASLT_MATMUL_DESC_COMPUTE_TYPE),
            int32_t(CUBLAS_COMPUTE_32F));
  EXPECT_EQ(operationAttribute<int32_t>(*blas, d->operation,
                                        CUBLASLT_MATMUL_DESC_SCALE_TYPE),
            int32_t(CUDA_R_32F));
  EXPECT_EQ(operationAttribute<int32_t>(*blas, d->operation,
                                        CUBLASLT_MATMUL_DESC_TRANSA),
            int32_t(CUBLAS_OP_T));
  EXPECT_EQ(operationAttribute<int32_t>(*blas, d->operation,
                                        CUBLASLT_MATMUL_DESC_TRANSB),
            int32_t(CUBLAS_OP_N));
  EXPECT_EQ(operationAttribute<uint32_t>(*blas, d->operation,
                                         CUBLASLT_MATMUL_DESC_EPILOGUE),
            uint32_t(CUBLASLT_EPILOGUE_GELU_BIAS));
  EXPECT_EQ(operationAttribute<const void *>(*blas, d->operation,
                                             CUBLASLT_MATMUL_DESC_BIAS_POINTER),
            reinterpret_cast<const void *>(0x7000));
  EXPECT_EQ(operationAttribute<int32_t>(*blas, d->operation,
                                        CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE),
            int32_t(CUDA_R_32F));
  EXPECT_EQ(operationAttribute<int64_t>(*blas, d->operation,
                                        CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE),
            0);
  expectLayout(*blas, d->a, CUDA_R_16F, 3, 16, 3, 4, 0);
  expectLayout(*blas, d->b, CUDA_R_16F, 16, 8, 16, 4, 128);
  expectLayout(*blas, d->c, CUDA_R_16F, 3, 8, 3, 4, 24);
  expectLayout(*blas, d->d, CUDA_R_16F, 3, 8, 3, 4, 24);
  EXPECT_EQ(d->alpha, 1.0f);
  EXPECT_EQ(d->beta, 0.0f);
}

TEST(CudaBlas, NoBiasEpilogueSetsNoBiasPointer) {
  const BlasLt *blas = blasOrSkip();
  if (!blas)
    GTEST_SKIP() << "cuBLASLt is not installed here";
  MatmulCall call;
  call.a = {BlasDataType::R32F, BlasOrder::Col, 5, 2, 5, 1, 0};
  call.b = {BlasDataType::R32F, BlasOrder::Col, 2, 7, 2, 1, 0};
  call.d = {BlasDataType::R32F, BlasOrder::Col, 5, 7, 5, 1, 0};
  call.c = call.d;
  call.epilogue = BlasEpilogue::Relu;
  std::string error;
  std::unique_ptr<BlasDescriptors> d =
      BlasDescriptors::create(*blas, call, 0, error);
  ASSERT_TRUE(d) << error;
  EXPECT_EQ(operationAttribute<uint32_t>(*blas, d->operation,
                                         CUBLASLT_MATMUL_DESC_EPILOGUE),
            uint32_t(CUBLASLT_EPILOGUE_RELU));
  EXPECT_EQ(operationAttribute<const void *>(*blas, d->operation,
                                             CUBLASLT_MATMUL_DESC_BIAS_POINTER),
            nullptr);
  expectLayout(*blas, d->a, CUDA_R_32F, 5, 2, 5, 1, 0);
  expectLayout(*blas, d->d, CUDA_R_32F, 5, 7, 5, 1, 0);
}

TEST(CudaDevice, RunsWhereAGpuIs) {
  // A smoke test of the device on a GPU machine; elsewhere it reports why
  // there is none (test/Runtime/gpu-run.test runs models end to end).
  std::string error;
  std::unique_ptr<Device> device = createCudaDevice({}, error);
  if (!device)
    GTEST_SKIP() << "no GPU: " << error;
  std::unique_ptr<DeviceMemory> memory = device->allocate(1024, error);
  ASSERT_TRUE(memory) << error;
  EXPECT_EQ(memory->address() % 256, 0u);
  std::vector<uint8_t> out(1024), in(1024);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = uint8_t(i * 7);
  ASSERT_TRUE(device->upload(*memory, 0, in.data(), 1024, error)) << error;
  ASSERT_TRUE(device->download(*memory, 0, out.data(), 1024, error)) << error;
  EXPECT_EQ(in, out);
}

#endif // FUSEC_HAVE_CUDA_HEADERS

} // namespace
