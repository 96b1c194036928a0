//===- Windows.cpp - Reference pad, gather, patches, conv, pooling --------===//
//
// Direct loops, independent of the patches + matmul lowering that code
// generation uses (fusec-lower-windows): each is the other's check. The
// convolution keeps one f64 accumulator per output channel and visits the
// window, then the channels, so that the inner loop over output channels
// is contiguous in the HWIO filter and vectorises.
//
//===----------------------------------------------------------------------===//

#include "KernelSupport.h"

#include <cstring>
#include <limits>
#include <vector>

using namespace fusec;
using namespace fusec::kernels;
using namespace fusec::kernels::detail;

namespace {

/// Per output position along one dimension, the input position it copies,
/// or -1 for the constant.
std::vector<int64_t> padSources(int64_t outDim, int64_t inDim, int64_t low,
                                int64_t interior, PadKind kind) {
  std::vector<int64_t> src(size_t(outDim), -1);
  for (int64_t i = 0; i < outDim; ++i) {
    int64_t j = i - low;
    switch (kind) {
    case PadKind::Constant:
      if (j >= 0 && j % (interior + 1) == 0 && j / (interior + 1) < inDim)
        src[size_t(i)] = j / (interior + 1);
      break;
    case PadKind::Reflect:
      if (inDim == 1)
        j = 0;
      if (j < 0)
        j = -j;
      if (j >= inDim)
        j = 2 * (inDim - 1) - j;
      src[size_t(i)] = j;
      break;
    case PadKind::Edge:
      src[size_t(i)] = std::min(std::max<int64_t>(j, 0), inDim - 1);
      break;
    }
  }
  return src;
}

/// The storage bits of `value` in dtype `t`, as `cast` converts (the
/// verifier makes integer values exact).
template <DType D> typename Elem<D>::Storage storageOf(double value) {
  using E = Elem<D>;
  if constexpr (D == DType::I1)
    return value != 0;
  else if constexpr (std::is_floating_point_v<typename E::Compute>)
    return E::storeWide(value);
  else
    return typename E::Storage(int64_t(value));
}

/// The value a padding element of a max pool holds.
template <DType D> typename Elem<D>::Compute lowest() {
  using C = typename Elem<D>::Compute;
  if constexpr (std::is_floating_point_v<C>)
    return -std::numeric_limits<C>::infinity();
  else
    return std::numeric_limits<C>::min();
}

} // namespace

void kernels::pad(const Buffer &in, const std::vector<int64_t> &low,
                  const std::vector<int64_t> &interior, PadKind kind,
                  double value, Buffer &out) {
  const Shape &is = in.shape(), &os = out.shape();
  size_t rank = os.size();
  if (out.numElements() == 0)
    return;
  std::vector<std::vector<int64_t>> sources;
  for (size_t d = 0; d < rank; ++d)
    sources.push_back(padSources(os[d], is[d], low[d], interior[d], kind));
  Shape inStrides = contiguousStrides(is);
  size_t width = dtypeSize(in.dtype());
  // The constant's bytes.
  std::array<unsigned char, 8> fill{};
  visitDType(in.dtype(), [&](auto tag) {
    auto bits = storageOf<decltype(tag)::value>(value);
    std::memcpy(fill.data(), &bits, sizeof(bits));
  });
  const auto *src = static_cast<const unsigned char *>(in.data());
  auto *dst = static_cast<unsigned char *>(out.data());
  Shape counter(rank, 0);
  for (int64_t o = 0, e = out.numElements(); o < e; ++o) {
    int64_t at = 0;
    bool inside = true;
    for (size_t d = 0; d < rank && inside; ++d) {
      int64_t s = sources[d][size_t(counter[d])];
      inside = s >= 0;
      at += s * inStrides[d];
    }
    std::memcpy(dst + size_t(o) * width,
                inside ? src + size_t(at) * width : fill.data(), width);
    for (size_t d = rank; d-- > 0;) {
      if (++counter[d] < os[d])
        break;
      counter[d] = 0;
    }
  }
}

void kernels::gather(const Buffer &in, const Buffer &indices, int64_t axis,
                     Buffer &out) {
  if (out.numElements() == 0)
    return;
  const Shape &is = in.shape();
  int64_t outer = 1, inner = 1, dim = is[size_t(axis)];
  for (int64_t d = 0; d < axis; ++d)
    outer *= is[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < is.size(); ++d)
    inner *= is[d];
  size_t width = dtypeSize(in.dtype()) * size_t(inner);
  int64_t count = indices.numElements();
  const auto *src = static_cast<const unsigned char *>(in.data());
  auto *dst = static_cast<unsigned char *>(out.data());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < count; ++j) {
      int64_t k = indices.dtype() == DType::I64
                      ? indices.as<int64_t>()[j]
                      : int64_t(indices.as<int32_t>()[j]);
      if (k < 0)
        k += dim;
      k = std::min(std::max<int64_t>(k, 0), dim - 1);
      std::memcpy(dst, src + size_t(o * dim + k) * width, width);
      dst += width;
    }
}

void kernels::patches(const Buffer &in, const Window2D &w, Buffer &out) {
  const Shape &is = in.shape(), &os = out.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t oh = os[1], ow = os[2], kh = os[3], kw = os[4];
  size_t width = dtypeSize(in.dtype());
  size_t row = size_t(c) * width; // One pixel's channels.
  const auto *src = static_cast<const unsigned char *>(in.data());
  auto *dst = static_cast<unsigned char *>(out.data());
  if (out.numElements() == 0)
    return;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            int64_t y = i * w.strides[0] + p * w.dilations[0];
            int64_t x = j * w.strides[1] + q * w.dilations[1];
            std::memcpy(dst, src + size_t(((b * h + y) * wd + x) * c) * width,
                        row);
            dst += row;
          }
}

void kernels::conv2d(const Buffer &in, const Buffer &filter, const Buffer *bias,
                     const Window2D &w, int64_t groups, Buffer &out) {
  const Shape &is = in.shape(), &fs = filter.shape(), &os = out.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t kh = fs[0], kw = fs[1], cg = fs[2], f = fs[3];
  int64_t oh = os[1], ow = os[2], fg = f / groups;
  if (out.numElements() == 0)
    return;
  visitDType(in.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)::value>;
    using S = typename E::Storage;
    using C = typename E::Compute;
    if constexpr (std::is_floating_point_v<C>) {
      const S *x = in.as<S>(), *k = filter.as<S>();
      const S *b = bias ? bias->as<S>() : nullptr;
      S *o = out.as<S>();
      // The filter in f64 once: [KH, KW, Cg, F].
      std::vector<double> wk(size_t(filter.numElements()));
      for (size_t i = 0; i < wk.size(); ++i)
        wk[i] = double(E::load(k[i]));
      // -0 is the additive identity (see matmul); an empty sum is +0.
      double zero = kh * kw * cg ? -0.0 : 0.0;
      std::vector<double> acc(static_cast<size_t>(f));
      for (int64_t bn = 0; bn < n; ++bn)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            std::fill(acc.begin(), acc.end(), zero);
            for (int64_t g = 0; g < groups; ++g) {
              double *ag = acc.data() + g * fg;
              for (int64_t p = 0; p < kh; ++p) {
                int64_t y = w.inputAt(0, i, p);
                for (int64_t q = 0; q < kw; ++q) {
                  int64_t xx = w.inputAt(1, j, q);
                  bool inside = y >= 0 && y < h && xx >= 0 && xx < wd;
                  for (int64_t ci = 0; ci < cg; ++ci) {
                    // Padding is a zero that takes part in the products.
                    double v =
                        inside ? double(E::load(x[((bn * h + y) * wd + xx) * c +
                                                  g * cg + ci]))
                               : 0.0;
                    const double *row =
                        wk.data() + ((p * kw + q) * cg + ci) * f + g * fg;
                    for (int64_t fi = 0; fi < fg; ++fi)
                      ag[fi] += v * row[fi];
                  }
                }
              }
            }
            S *dst = o + ((bn * oh + i) * ow + j) * f;
            for (int64_t fi = 0; fi < f; ++fi) {
              S rounded = E::storeWide(acc[size_t(fi)]);
              dst[fi] =
                  b ? E::store(E::load(rounded) + E::load(b[fi])) : rounded;
            }
          }
    }
  });
}

void kernels::pool2d(PoolKind kind, const Buffer &in, const Window2D &w,
                     Buffer &out) {
  const Shape &is = in.shape(), &os = out.shape();
  int64_t n = is[0], h = is[1], wd = is[2], c = is[3];
  int64_t oh = os[1], ow = os[2], kh = w.size[0], kw = w.size[1];
  if (out.numElements() == 0)
    return;
  visitDType(in.dtype(), [&](auto tag) {
    constexpr DType D = decltype(tag)::value;
    using E = Elem<D>;
    using S = typename E::Storage;
    using C = typename E::Compute;
    if constexpr (D != DType::I1) {
      const S *x = in.as<S>();
      S *o = out.as<S>();
      std::vector<double> sum(static_cast<size_t>(c));
      std::vector<C> best(static_cast<size_t>(c));
      for (int64_t bn = 0; bn < n; ++bn)
        for (int64_t i = 0; i < oh; ++i)
          for (int64_t j = 0; j < ow; ++j) {
            std::fill(sum.begin(), sum.end(), -0.0);
            std::fill(best.begin(), best.end(), lowest<D>());
            int64_t inside = 0;
            for (int64_t p = 0; p < kh; ++p) {
              int64_t y = w.inputAt(0, i, p);
              for (int64_t q = 0; q < kw; ++q) {
                int64_t xx = w.inputAt(1, j, q);
                if (y < 0 || y >= h || xx < 0 || xx >= wd) {
                  // Padding: -inf for max (no change), 0 for the sums.
                  for (int64_t ci = 0; ci < c; ++ci)
                    sum[size_t(ci)] += 0.0;
                  continue;
                }
                ++inside;
                const S *px = x + ((bn * h + y) * wd + xx) * c;
                for (int64_t ci = 0; ci < c; ++ci) {
                  C v = E::load(px[ci]);
                  if constexpr (std::is_floating_point_v<C>) {
                    best[size_t(ci)] = ieeeMax(best[size_t(ci)], v);
                    sum[size_t(ci)] += double(v);
                  } else {
                    best[size_t(ci)] = std::max(best[size_t(ci)], v);
                  }
                }
              }
            }
            S *dst = o + ((bn * oh + i) * ow + j) * c;
            double count =
                double(kind == PoolKind::AverageAll ? kh * kw : inside);
            for (int64_t ci = 0; ci < c; ++ci) {
              if (kind == PoolKind::Max) {
                dst[ci] = E::store(best[size_t(ci)]);
              } else if constexpr (std::is_floating_point_v<C>) {
                dst[ci] = E::storeWide(sum[size_t(ci)] / count);
              }
            }
          }
    }
  });
}
