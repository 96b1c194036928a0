//===- Reductions.cpp - Reference reduction kernels ----------------------===//
//
// Sums and products accumulate in f64 (floats) or wrap (integers) in
// row-major order and round once; max/min follow the elementwise rules.
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
// Reductions
//===----------------------------------------------------------------------===//

template <typename E>
void reduceT(ReduceKind kind, const Buffer &in,
             const std::vector<int64_t> &axes, Buffer &out) {
  using S = typename E::Storage;
  using C = typename E::Compute;
  constexpr bool isFloatT = std::is_floating_point_v<C>;
  // Accumulators: f64 sums / f32 extrema for floats, u64 sums / i64 extrema
  // for integers (wrapping like the element type once truncated).
  using Acc = std::conditional_t<isFloatT, double, int64_t>;
  int64_t outCount = out.numElements();
  // Float sums start from -0, the additive identity (-0 + x == x for every
  // x), so that a sum of one element is that element bit for bit.
  Acc zero = Acc(0);
  if constexpr (isFloatT)
    zero = -0.0;
  std::vector<Acc> acc(size_t(outCount), zero);
  bool extremum = kind == ReduceKind::Max || kind == ReduceKind::Min;
  if (extremum) {
    Acc init;
    if constexpr (isFloatT)
      init = kind == ReduceKind::Max ? -INFINITY : INFINITY;
    else
      init = kind == ReduceKind::Max ? std::numeric_limits<C>::min()
                                     : std::numeric_limits<C>::max();
    std::fill(acc.begin(), acc.end(), init);
  } else if (kind == ReduceKind::Prod) {
    std::fill(acc.begin(), acc.end(), Acc(1));
  }

  // Accumulator strides over the input index space: 0 along reduced axes.
  const Shape &shape = in.shape();
  Shape accStrides(shape.size(), 0);
  {
    int64_t s = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      if (std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end())
        continue;
      accStrides[d] = s;
      s = mulWrap(s, shape[d]);
    }
  }
  const S *src = in.as<S>();
  Acc *dst = acc.data();
  auto combine = [kind](Acc a, C x) -> Acc {
    if constexpr (isFloatT) {
      switch (kind) {
      case ReduceKind::Max:
        return ieeeMax(C(a), x);
      case ReduceKind::Min:
        return ieeeMin(C(a), x);
      case ReduceKind::Prod:
        return a * double(x);
      default:
        return a + double(x);
      }
    } else {
      switch (kind) {
      case ReduceKind::Max:
        return std::max<Acc>(a, x);
      case ReduceKind::Min:
        return std::min<Acc>(a, x);
      case ReduceKind::Prod:
        return Acc(uint64_t(a) * uint64_t(int64_t(x)));
      default:
        return Acc(uint64_t(a) + uint64_t(int64_t(x)));
      }
    }
  };
  std::array<Shape, 2> strides = {contiguousStrides(shape), accStrides};
  forEachRun<2>(shape, strides,
                [&](const std::array<int64_t, 2> &off, int64_t n,
                    const std::array<int64_t, 2> &st) {
                  const S *pi = src + off[0];
                  Acc *pa = dst + off[1];
                  if (st[1] == 0) {
                    Acc a = *pa;
                    for (int64_t i = 0; i < n; ++i)
                      a = combine(a, E::load(pi[i * st[0]]));
                    *pa = a;
                  } else {
                    for (int64_t i = 0; i < n; ++i)
                      pa[i * st[1]] =
                          combine(pa[i * st[1]], E::load(pi[i * st[0]]));
                  }
                });

  int64_t reducedCount = 1;
  for (int64_t axis : axes)
    reducedCount = mulWrap(reducedCount, shape[size_t(axis)]);
  if (in.numElements() == 0)
    reducedCount = 0; // Some reduced dimension is 0 (or the output is empty).
  S *o = out.as<S>();
  for (int64_t i = 0; i < outCount; ++i) {
    Acc a = acc[size_t(i)];
    if constexpr (isFloatT) {
      if (kind == ReduceKind::Mean)
        a = a / double(reducedCount); // 0/0 -> NaN for empty reductions.
      else if (kind == ReduceKind::Sum && reducedCount == 0)
        a = 0.0; // The empty sum is +0.
      o[i] = E::storeWide(a);
    } else {
      o[i] = S(uint64_t(a));
    }
  }
}

} // namespace

void kernels::reduce(ReduceKind kind, const Buffer &in,
                     const std::vector<int64_t> &axes, Buffer &out) {
  visitDType(in.dtype(), [&](auto tag) {
    if constexpr (decltype(tag)::value != DType::I1)
      reduceT<Elem<decltype(tag)::value>>(kind, in, axes, out);
  });
}
