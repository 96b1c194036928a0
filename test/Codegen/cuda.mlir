// The shape of generated CUDA C++: what each kind of fusion becomes.
// RUN: fusec %s --entry=vectorized --emit=cuda | FileCheck %s --check-prefix=VEC
// RUN: fusec %s --entry=half --emit=cuda | FileCheck %s --check-prefix=HALF
// RUN: fusec %s --entry=half --emit=cuda --fp16-round-each-op | FileCheck %s --check-prefix=ROUND
// RUN: fusec %s --entry=broadcast --emit=cuda | FileCheck %s --check-prefix=BCAST
// RUN: fusec %s --entry=broadcast_odd --emit=cuda | FileCheck %s --check-prefix=BCAST30
// RUN: fusec %s --entry=row_sum --emit=cuda | FileCheck %s --check-prefix=ROW
// RUN: fusec %s --entry=row_sum_warp --emit=cuda | FileCheck %s --check-prefix=WARP
// RUN: fusec %s --entry=row_max_short --emit=cuda | FileCheck %s --check-prefix=SHORT
// RUN: fusec %s --entry=column_sum_long --emit=cuda | FileCheck %s --check-prefix=SLICED
// RUN: fusec %s --entry=column_sum --emit=cuda | FileCheck %s --check-prefix=COL
// RUN: fusec %s --entry=huge --emit=cuda | FileCheck %s --check-prefix=HUGE
// RUN: fusec %s --entry=shared --emit=cuda | FileCheck %s --check-prefix=SHARED
// RUN: fusec %s --entry=shared --emit=cuda --gpu-arch=sm_80 | FileCheck %s --check-prefix=SHARED
// The prelude includes nothing outside the host build.
// RUN: fusec %s --entry=vectorized --emit=cuda | FileCheck %s --check-prefix=NOINC

// 4100 f32 = 1025 vectors of 16 bytes: a vector loop and no scalar tail
// (4100 is a multiple of 4; Inputs/kernels.mlir's vector_tail has one), a
// grid sized for sm_90's 132 multiprocessors (not relevant here: 5 blocks).
// VEC: // [[K:fusec_[0-9a-f]{16}]]: 2 operations
// Both inputs may share storage with the output (in place): neither is
// __restrict__.
// VEC-NEXT: extern "C" __global__ void [[K]](const float *in0, const float *in1, float *out0) {
// VEC-NEXT: const int first = (int)blockIdx.x * blockDim.x + threadIdx.x;
// VEC-NEXT: const int step = (int)gridDim.x * blockDim.x;
// VEC-NEXT: for (int w = first; w < 1025; w += step) {
// VEC-NEXT: const fusec_vec<float, 4> x0 = reinterpret_cast<const fusec_vec<float, 4> *>(in0)[w];
// VEC-NEXT: const fusec_vec<float, 4> x1 = reinterpret_cast<const fusec_vec<float, 4> *>(in1)[w];
// VEC: reinterpret_cast<fusec_vec<float, 4> *>(out0)[w] = y0;
// VEC-NEXT: }
// VEC-NEXT: }
// VEC: extern "C" void [[K]]_host(unsigned grid, unsigned block, void **args) {
func.func @vectorized(%a: tensor<4100xf32>, %b: tensor<4100xf32>) -> tensor<4100xf32> {
  %0 = fusec.add %a, %b : tensor<4100xf32>
  %1 = fusec.exp %0 : tensor<4100xf32>
  return %1 : tensor<4100xf32>
}

// f16 storage: 8 elements per vector; computed in f32 and rounded once, at
// the store, unless asked to round after every operation.
// HALF: const fusec_vec<fusec_u16, 8> x0
// HALF: const float [[X:v[0-9]+]] = fusec_h2f(x0.v[l]);
// HALF-NEXT: const float [[M:v[0-9]+]] = ([[X]] * [[X]]);
// HALF-NEXT: const float [[T:v[0-9]+]] = tanhf([[M]]);
// HALF-NEXT: y0.v[l] = fusec_f2h([[T]]);
// ROUND: const float [[X:v[0-9]+]] = fusec_h2f(x0.v[l]);
// ROUND-NEXT: const float [[M:v[0-9]+]] = fusec_round_f16(([[X]] * [[X]]));
// ROUND-NEXT: const float [[T:v[0-9]+]] = fusec_round_f16(tanhf([[M]]));
// ROUND-NEXT: y0.v[l] = fusec_f2h([[T]]);
func.func @half(%a: tensor<64xf16>) -> tensor<64xf16> {
  %0 = fusec.mul %a, %a : tensor<64xf16>
  %1 = fusec.tanh %0 : tensor<64xf16>
  return %1 : tensor<64xf16>
}

// A broadcast row keeps the innermost dimension: each thread computes 4
// consecutive outputs of a row, and the bias is read as a vector at the
// column of the first (LaneAccess).
// BCAST: const int [[P:d[0-9]+]] = w * 4;
// BCAST: const int [[C:d[0-9]+]] = ([[P]]) % 32;
// BCAST: fusec_vec<float, 4> y0;
// BCAST-NEXT: const fusec_vec<float, 4> [[X:x[0-9]+]] = reinterpret_cast<const fusec_vec<float, 4> *>(in0)[w];
// BCAST-NEXT: const float {{v[0-9]+}} = [[X]].v[0];
// BCAST-NEXT: const fusec_vec<float, 4> [[B:x[0-9]+]] = reinterpret_cast<const fusec_vec<float, 4> *>(in1)[([[C]]) / 4];
// BCAST: const float {{v[0-9]+}} = [[B]].v[3];
// BCAST: reinterpret_cast<fusec_vec<float, 4> *>(out0)[w] = y0;
func.func @broadcast(%a: tensor<16x32xf32>, %bias: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = fusec.add %a, %bias : tensor<16x32xf32>, tensor<32xf32>
  return %0 : tensor<16x32xf32>
}

// Rows that are no multiple of the width: index arithmetic, the bias read
// at the column index.
// BCAST30: const int [[R:d[0-9]+]] = (i) / 30;
// BCAST30-NEXT: const int [[C:d[0-9]+]] = (i) % 30;
// BCAST30-NEXT: const float {{v[0-9]+}} = in0[([[R]]) * 30 + [[C]]];
// BCAST30-NEXT: const float {{v[0-9]+}} = in1[[[C]]];
func.func @broadcast_odd(%a: tensor<16x30xf32>, %bias: tensor<30xf32>) -> tensor<16x30xf32> {
  %0 = fusec.add %a, %bias : tensor<16x30xf32>, tensor<30xf32>
  return %0 : tensor<16x30xf32>
}

// A row reduction of long rows: a block per row, a strided pass with the
// producer fused in (4 elements of the row per thread and step, read as
// one vector), warp shuffles, a shared-memory combine, f64 accumulation.
// ROW: __shared__ double partial[32];
// ROW-NEXT: for (int row = blockIdx.x; row < 8; row += gridDim.x) {
// ROW-NEXT: double acc = -0.0;
// ROW-NEXT: for (int jv = threadIdx.x; jv < 2000; jv += blockDim.x) {
// ROW-NEXT: const int j = jv * 4;
// ROW: const fusec_vec<float, 4> [[X:x[0-9]+]] = reinterpret_cast<const fusec_vec<float, 4> *>(in0)[
// ROW-NEXT: const float [[V0:v[0-9]+]] = [[X]].v[0];
// ROW-NEXT: expf([[V0]])
// ROW: acc = (acc + (double)(
// ROW: [[X]].v[3];
// ROW: acc = (acc + (double)(
// ROW: __shfl_xor_sync(0xffffffffu, acc, offset);
// ROW: __syncthreads();
// ROW: const float reduced = (float)partial[0];
func.func @row_sum(%a: tensor<8x8000xf32>) -> tensor<8xf32> {
  %0 = fusec.exp %a : tensor<8x8000xf32>
  %1 = fusec.reduce_sum %0 axes = [1] : tensor<8x8000xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// Medium rows: a warp per row (8 per block of 256), lanes 0..31 of the
// warp combined by shuffles alone; rows past the last take part with the
// initial value. Short rows: 8 lanes per row, 4 rows per warp.
// WARP: const int lane = threadIdx.x & 31;
// WARP-NEXT: for (int first = ((int)blockIdx.x * blockDim.x + (threadIdx.x & ~31u)) / 32; first < 8; first += (int)gridDim.x * (blockDim.x / 32)) {
// WARP-NEXT: const int row = first + (threadIdx.x & 31) / 32;
// WARP-NEXT: double acc = -0.0;
// WARP-NEXT: if (row < 8) {
// WARP-NEXT: for (int jv = lane; jv < 250; jv += 32) {
// WARP: for (int offset = 16; offset > 0; offset >>= 1) {
// WARP-NOT: __syncthreads
// WARP: if (lane == 0) {
// WARP-NEXT: out0[row] = reduced;
// SHORT: const int lane = threadIdx.x & 7;
// SHORT: const int row = first + (threadIdx.x & 31) / 8;
// SHORT: for (int j = lane; j < 6; j += 8) {
// SHORT: for (int offset = 4; offset > 0; offset >>= 1) {
func.func @row_sum_warp(%a: tensor<8x1000xf32>) -> tensor<8xf32> {
  %1 = fusec.reduce_sum %a axes = [1] : tensor<8x1000xf32> -> tensor<8xf32>
  return %1 : tensor<8xf32>
}
func.func @row_max_short(%a: tensor<100x6xf32>) -> tensor<100xf32> {
  %1 = fusec.reduce_max %a axes = [1] : tensor<100x6xf32> -> tensor<100xf32>
  return %1 : tensor<100xf32>
}

// Other reductions: a thread per output, in the reference's order.
// COL: for (int row = (int)blockIdx.x * blockDim.x + threadIdx.x; row < 30; row += (int)gridDim.x * blockDim.x) {
// COL-NEXT: double acc = -0.0;
// COL-NEXT: for (int j = 0; j < 20; ++j) {
// COL-NOT: __shfl
func.func @column_sum(%a: tensor<20x30xf32>) -> tensor<30xf32> {
  %0 = fusec.reduce_sum %a axes = [0] : tensor<20x30xf32> -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// Long columns: 32 outputs per block, 8 threads each (a block of 256; the
// slices follow the launch's block size) over every 8th element, combined
// in slice order through shared memory (no atomics).
// SLICED: __shared__ double partial[1024];
// SLICED-NEXT: const int column = threadIdx.x % 32, slice = threadIdx.x / 32;
// SLICED-NEXT: const int slices = blockDim.x / 32;
// SLICED-NEXT: for (int first = (int)blockIdx.x * 32; first < 30; first += (int)gridDim.x * 32) {
// SLICED: if (slice < slices && row < 30) {
// SLICED-NEXT: for (int j = slice; j < 500; j += slices) {
// SLICED: partial[threadIdx.x] = acc;
// SLICED-NEXT: __syncthreads();
// SLICED-NEXT: if (slice == 0 && row < 30) {
// SLICED-NEXT: acc = -0.0;
// SLICED-NEXT: for (int s = 0; s < slices; ++s)
// SLICED-NEXT: acc = (acc + partial[s * 32 + column]);
// SLICED-NOT: atomic
func.func @column_sum_long(%a: tensor<500x30xf32>) -> tensor<30xf32> {
  %0 = fusec.reduce_sum %a axes = [0] : tensor<500x30xf32> -> tensor<30xf32>
  return %0 : tensor<30xf32>
}

// 2^33 elements: 64-bit index arithmetic.
// HUGE: const fusec_i64 first = (fusec_i64)blockIdx.x * blockDim.x + threadIdx.x;
// HUGE: for (fusec_i64 w = first; w < 2147483648; w += step) {
func.func @huge(%a: tensor<65536x131072xf32>) -> tensor<65536x131072xf32> {
  %0 = fusec.neg %a : tensor<65536x131072xf32>
  return %0 : tensor<65536x131072xf32>
}

// Identical fusions share one kernel.
// SHARED: extern "C" __global__ void fusec_
// SHARED-NOT: __global__
func.func @shared(%a: tensor<256xf32>, %b: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %0 = fusec.sqrt %a : tensor<256xf32>
  %1 = fusec.sqrt %b : tensor<256xf32>
  return %0, %1 : tensor<256xf32>, tensor<256xf32>
}

// NOINC: // fusec kernel prelude
// NOINC-NEXT: #ifdef FUSEC_HOST
// NOINC-NEXT: #include <cmath>
// NOINC-NEXT: #include <cstring>
// NOINC-NEXT: #include "fusec/Runtime/Host/HostCuda.h"
// NOINC-NEXT: #include "fusec/Support/Float16.h"
// NOINC-NEXT: #endif
// NOINC-NOT: #include
