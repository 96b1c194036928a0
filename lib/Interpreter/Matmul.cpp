//===- Matmul.cpp - Reference matrix products ----------------------------===//
//
// Batched matmul with NumPy batch broadcasting; floats accumulate in f64,
// integers wrap.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace fusec;
using namespace fusec::kernels;
using namespace fusec::kernels::detail;

namespace {

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

/// One [M,K] x [K,N] product into `o`. Float products are exact in f64 and
/// summed over k in order; integers wrap.
/// `O` is the result's element: `E` itself, or f32 for f16/bf16 operands
/// (a low-precision product returned with its f32 accumulation).
template <typename E, typename O = E>
void gemm(const typename E::Storage *a, const typename E::Storage *b,
          typename O::Storage *o, int64_t m, int64_t k, int64_t n,
          std::vector<double> &accF, std::vector<uint64_t> &accI) {
  using C = typename E::Compute;
  if constexpr (std::is_floating_point_v<C>) {
    // Start from -0 (the additive identity) unless the sum is empty.
    double zero = k ? -0.0 : 0.0;
    accF.assign(size_t(n), zero);
    for (int64_t i = 0; i < m; ++i) {
      std::fill(accF.begin(), accF.end(), zero);
      double *acc = accF.data();
      for (int64_t p = 0; p < k; ++p) {
        double av = E::load(a[i * k + p]);
        const typename E::Storage *brow = b + p * n;
        for (int64_t j = 0; j < n; ++j)
          acc[j] += av * double(E::load(brow[j]));
      }
      for (int64_t j = 0; j < n; ++j)
        o[i * n + j] = O::storeWide(acc[j]);
    }
  } else {
    accI.assign(size_t(n), 0);
    for (int64_t i = 0; i < m; ++i) {
      std::fill(accI.begin(), accI.end(), 0);
      uint64_t *acc = accI.data();
      for (int64_t p = 0; p < k; ++p) {
        uint64_t av = uint64_t(int64_t(a[i * k + p]));
        const typename E::Storage *brow = b + p * n;
        for (int64_t j = 0; j < n; ++j)
          acc[j] += av * uint64_t(int64_t(brow[j]));
      }
      for (int64_t j = 0; j < n; ++j)
        o[i * n + j] = typename E::Storage(acc[j]);
    }
  }
}

} // namespace

void kernels::matmul(const Buffer &a, const Buffer &b, Buffer &out) {
  const Shape &sa = a.shape(), &sb = b.shape(), &so = out.shape();
  size_t ra = sa.size(), rb = sb.size(), ro = so.size();
  int64_t m = sa[ra - 2], k = sa[ra - 1], n = sb[rb - 1];
  // Batch shapes, in units of whole matrices.
  Shape batchA(sa.begin(), sa.end() - 2), batchB(sb.begin(), sb.end() - 2),
      batchO(so.begin(), so.end() - 2);
  std::array<Shape, 3> strides = {contiguousStrides(batchO),
                                  broadcastStrides(batchA, batchO),
                                  broadcastStrides(batchB, batchO)};
  (void)ro;
  visitDType(a.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)::value>;
    using S = typename E::Storage;
    if constexpr (decltype(tag)::value != DType::I1) {
      if (m == 0 || n == 0 || out.numElements() == 0)
        return;
      const S *pa = a.as<S>();
      const S *pb = b.as<S>();
      std::vector<double> accF;
      std::vector<uint64_t> accI;
      auto run = [&](auto outTag) {
        using O = Elem<decltype(outTag)::value>;
        auto *po = out.as<typename O::Storage>();
        forEachRun<3>(batchO, strides,
                      [&](const std::array<int64_t, 3> &off, int64_t runLen,
                          const std::array<int64_t, 3> &st) {
                        for (int64_t i = 0; i < runLen; ++i)
                          gemm<E, O>(pa + (off[1] + i * st[1]) * m * k,
                                     pb + (off[2] + i * st[2]) * k * n,
                                     po + (off[0] + i * st[0]) * m * n, m, k, n,
                                     accF, accI);
                      });
      };
      if constexpr (std::is_same_v<typename E::Compute, float> &&
                    decltype(tag)::value != DType::F32) {
        if (out.dtype() == DType::F32)
          return run(DTypeTag<DType::F32>{});
      }
      run(tag);
    }
  });
}
