//===- Elementwise.cpp - Reference elementwise kernels -------------------===//
//
// unary, binary, compare, select and cast over broadcast operands, with the
// scalar semantics the dialect documents (IEEE maximum/minimum, wrapping
// integers, round-to-nearest-even casts that saturate).
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
// Scalar semantics
//===----------------------------------------------------------------------===//

template <typename T> T wrapAdd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(a) + U(b));
}
template <typename T> T wrapSub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(a) - U(b));
}
template <typename T> T wrapMul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return T(U(a) * U(b));
}

template <typename T> T intPow(T base, T exp) {
  if (exp < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (exp & 1) ? T(-1) : T(1);
    return 0; // |base| >= 2 (truncated toward zero) or 0 (defined as 0).
  }
  T result = 1;
  while (exp) {
    if (exp & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp >>= 1;
  }
  return result;
}

template <BinaryKind K> struct BinaryFn {
  template <typename T> T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      switch (K) {
      case BinaryKind::Add:
        return a + b;
      case BinaryKind::Sub:
        return a - b;
      case BinaryKind::Mul:
        return a * b;
      case BinaryKind::Div:
        return a / b;
      case BinaryKind::Max:
        return ieeeMax(a, b);
      case BinaryKind::Min:
        return ieeeMin(a, b);
      case BinaryKind::Pow:
        return std::pow(a, b);
      }
    } else {
      switch (K) {
      case BinaryKind::Add:
        return wrapAdd(a, b);
      case BinaryKind::Sub:
        return wrapSub(a, b);
      case BinaryKind::Mul:
        return wrapMul(a, b);
      case BinaryKind::Div:
        if (b == 0)
          return 0;
        if (b == T(-1))
          return wrapSub(T(0), a); // Avoids INT_MIN / -1.
        return a / b;
      case BinaryKind::Max:
        return a > b ? a : b;
      case BinaryKind::Min:
        return a < b ? a : b;
      case BinaryKind::Pow:
        return intPow(a, b);
      }
    }
    return a;
  }
};

template <UnaryKind K> struct UnaryFn {
  /// Floats: in their compute type (f32, or f64 for f64).
  template <typename T> T operator()(T x) const {
    if constexpr (std::is_floating_point_v<T>) {
      switch (K) {
      case UnaryKind::Neg:
        return -x;
      case UnaryKind::Abs:
        return std::fabs(x);
      case UnaryKind::Exp:
        return std::exp(x);
      case UnaryKind::Log:
        return std::log(x);
      case UnaryKind::Sqrt:
        return std::sqrt(x);
      case UnaryKind::Rsqrt:
        return T(1) / std::sqrt(x);
      case UnaryKind::Reciprocal:
        return T(1) / x;
      case UnaryKind::Tanh:
        return std::tanh(x);
      case UnaryKind::Sigmoid:
        return T(1) / (T(1) + std::exp(-x));
      case UnaryKind::Relu:
        return x > T(0) ? x : (x != x ? x : T(0));
      case UnaryKind::Erf:
        return std::erf(x);
      case UnaryKind::GeluErf:
        return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440)));
      case UnaryKind::GeluTanh:
        return T(0.5) * x *
               (T(1) + std::tanh(T(0.79788456080286535588) *
                                 (x + T(0.044715) * x * x * x)));
      case UnaryKind::Floor:
        return std::floor(x);
      case UnaryKind::Ceil:
        return std::ceil(x);
      case UnaryKind::Round:
        return std::nearbyint(x);
      case UnaryKind::Trunc:
        return std::trunc(x);
      case UnaryKind::Sin:
        return std::sin(x);
      case UnaryKind::Cos:
        return std::cos(x);
      case UnaryKind::Atan:
        return std::atan(x);
      }
      return x;
    } else {
      switch (K) {
      case UnaryKind::Neg:
        return wrapSub(T(0), x);
      case UnaryKind::Abs:
        return x < 0 ? wrapSub(T(0), x) : x;
      case UnaryKind::Relu:
        return x > 0 ? x : T(0);
      default:
        return x; // Not defined on integers; the verifier rejects it.
      }
    }
  }
};

template <CompareKind K> struct CompareFn {
  template <typename T> uint8_t operator()(T a, T b) const {
    switch (K) {
    case CompareKind::Eq:
      return a == b;
    case CompareKind::Ne:
      return a != b;
    case CompareKind::Lt:
      return a < b;
    case CompareKind::Le:
      return a <= b;
    case CompareKind::Gt:
      return a > b;
    case CompareKind::Ge:
      return a >= b;
    }
    return 0;
  }
};

//===----------------------------------------------------------------------===//
// Elementwise drivers
//===----------------------------------------------------------------------===//

/// out[i] = f(a[i]) over a contiguous range.
template <typename InE, typename OutE, typename F>
void mapUnary(const typename InE::Storage *in, typename OutE::Storage *out,
              int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = OutE::store(f(InE::load(in[i])));
}

/// Two-operand elementwise loop with broadcasting. Storage types of the
/// operands follow InE, the result follows OutE.
template <typename InE, typename OutE, typename F>
void mapBinary(const Buffer &lhs, const Buffer &rhs, Buffer &out, F f) {
  using S = typename InE::Storage;
  using O = typename OutE::Storage;
  const S *a = lhs.as<S>();
  const S *b = rhs.as<S>();
  O *o = out.as<O>();
  std::array<Shape, 3> strides = {contiguousStrides(out.shape()),
                                  broadcastStrides(lhs.shape(), out.shape()),
                                  broadcastStrides(rhs.shape(), out.shape())};
  forEachRun<3>(out.shape(), strides,
                [&](const std::array<int64_t, 3> &off, int64_t n,
                    const std::array<int64_t, 3> &st) {
                  O *po = o + off[0];
                  const S *pa = a + off[1];
                  const S *pb = b + off[2];
                  if (st[1] == 1 && st[2] == 1) {
                    for (int64_t i = 0; i < n; ++i)
                      po[i] =
                          OutE::store(f(InE::load(pa[i]), InE::load(pb[i])));
                  } else if (st[1] == 1 && st[2] == 0) {
                    auto bv = InE::load(*pb);
                    for (int64_t i = 0; i < n; ++i)
                      po[i] = OutE::store(f(InE::load(pa[i]), bv));
                  } else if (st[1] == 0 && st[2] == 1) {
                    auto av = InE::load(*pa);
                    for (int64_t i = 0; i < n; ++i)
                      po[i] = OutE::store(f(av, InE::load(pb[i])));
                  } else {
                    for (int64_t i = 0; i < n; ++i)
                      po[i] = OutE::store(f(InE::load(pa[i * st[1]]),
                                            InE::load(pb[i * st[2]])));
                  }
                });
}

template <typename Fn> void visitBinaryKind(BinaryKind k, Fn &&fn) {
  switch (k) {
  case BinaryKind::Add:
    return fn(BinaryFn<BinaryKind::Add>());
  case BinaryKind::Sub:
    return fn(BinaryFn<BinaryKind::Sub>());
  case BinaryKind::Mul:
    return fn(BinaryFn<BinaryKind::Mul>());
  case BinaryKind::Div:
    return fn(BinaryFn<BinaryKind::Div>());
  case BinaryKind::Max:
    return fn(BinaryFn<BinaryKind::Max>());
  case BinaryKind::Min:
    return fn(BinaryFn<BinaryKind::Min>());
  case BinaryKind::Pow:
    return fn(BinaryFn<BinaryKind::Pow>());
  }
}

template <typename Fn> void visitUnaryKind(UnaryKind k, Fn &&fn) {
  switch (k) {
#define FUSEC_UNARY_CASE(Name)                                                 \
  case UnaryKind::Name:                                                        \
    return fn(UnaryFn<UnaryKind::Name>());
    FUSEC_UNARY_CASE(Neg)
    FUSEC_UNARY_CASE(Abs)
    FUSEC_UNARY_CASE(Exp)
    FUSEC_UNARY_CASE(Log)
    FUSEC_UNARY_CASE(Sqrt)
    FUSEC_UNARY_CASE(Rsqrt)
    FUSEC_UNARY_CASE(Reciprocal)
    FUSEC_UNARY_CASE(Tanh)
    FUSEC_UNARY_CASE(Sigmoid)
    FUSEC_UNARY_CASE(Relu)
    FUSEC_UNARY_CASE(Erf)
    FUSEC_UNARY_CASE(GeluErf)
    FUSEC_UNARY_CASE(GeluTanh)
    FUSEC_UNARY_CASE(Floor)
    FUSEC_UNARY_CASE(Ceil)
    FUSEC_UNARY_CASE(Round)
    FUSEC_UNARY_CASE(Trunc)
    FUSEC_UNARY_CASE(Sin)
    FUSEC_UNARY_CASE(Cos)
    FUSEC_UNARY_CASE(Atan)
#undef FUSEC_UNARY_CASE
  }
}

template <typename Fn> void visitCompareKind(CompareKind k, Fn &&fn) {
  switch (k) {
  case CompareKind::Eq:
    return fn(CompareFn<CompareKind::Eq>());
  case CompareKind::Ne:
    return fn(CompareFn<CompareKind::Ne>());
  case CompareKind::Lt:
    return fn(CompareFn<CompareKind::Lt>());
  case CompareKind::Le:
    return fn(CompareFn<CompareKind::Le>());
  case CompareKind::Gt:
    return fn(CompareFn<CompareKind::Gt>());
  case CompareKind::Ge:
    return fn(CompareFn<CompareKind::Ge>());
  }
}

//===----------------------------------------------------------------------===//
// Casts
//===----------------------------------------------------------------------===//

/// Rounds `v` to float such that a second rounding to a narrower format is
/// a single correct rounding (see roundToOddFloat); exact for |v| < 2^64.
float roundToOddFromInt(int64_t v) {
  long double wide = v; // Exact: long double has >= 64 significand bits.
  float f = float(wide);
  if (static_cast<long double>(f) == wide)
    return f;
  if (std::fabs(static_cast<long double>(f)) > std::fabs(wide))
    f = std::nextafter(f, 0.0f);
  return bitsToFloat(floatBits(f) | 1u);
}

template <typename T, typename F> T saturatingFloatToInt(F f) {
  if (std::isnan(f))
    return 0;
  double r = std::nearbyint(double(f)); // Ties to even (default mode).
  constexpr double lo = double(std::numeric_limits<T>::min());
  constexpr double hi = -lo; // 2^31 or 2^63, exactly representable.
  if (r >= hi)
    return std::numeric_limits<T>::max();
  if (r < lo)
    return std::numeric_limits<T>::min();
  return T(r);
}

template <typename SrcE, typename DstE>
void castRun(const typename SrcE::Storage *in, typename DstE::Storage *out,
             int64_t n) {
  using SrcC = typename SrcE::Compute;
  using DstS = typename DstE::Storage;
  constexpr bool srcFloat = std::is_floating_point_v<SrcC>;
  constexpr bool dstFloat = std::is_floating_point_v<typename DstE::Compute>;
  constexpr bool srcF64 = std::is_same_v<SrcE, Elem<DType::F64>>;
  constexpr bool dstBool = std::is_same_v<DstE, Elem<DType::I1>>;
  for (int64_t i = 0; i < n; ++i) {
    SrcC v = SrcE::load(in[i]);
    if constexpr (dstBool) {
      out[i] = v != SrcC(0); // NaN != 0 holds: NaN -> 1.
    } else if constexpr (srcF64 && dstFloat) {
      out[i] = DstE::storeWide(v); // One rounding from f64.
    } else if constexpr (srcFloat && dstFloat) {
      out[i] = DstE::store(v); // Exact, or one rounding from f32.
    } else if constexpr (srcFloat) {
      out[i] = saturatingFloatToInt<DstS>(v);
    } else if constexpr (dstFloat) {
      if constexpr (std::is_same_v<DstE, Elem<DType::F32>>)
        out[i] = float(int64_t(v)); // One rounding (cvtsi2ss).
      else if constexpr (std::is_same_v<DstE, Elem<DType::F64>>)
        out[i] = double(int64_t(v)); // One rounding (cvtsi2sd).
      else
        out[i] = DstE::store(roundToOddFromInt(int64_t(v)));
    } else {
      out[i] = DstS(uint64_t(int64_t(v))); // Wrap to the narrower type.
    }
  }
}

} // namespace

bool kernels::broadcastShapes(const Shape &a, const Shape &b, Shape &result) {
  size_t rank = std::max(a.size(), b.size());
  result.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return false;
    result[i] = da == 1 ? db : da;
  }
  return true;
}

void kernels::unary(UnaryKind kind, const Buffer &in, Buffer &out) {
  visitDType(in.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)::value>;
    if constexpr (decltype(tag)::value != DType::I1) {
      visitUnaryKind(kind, [&](auto fn) {
        mapUnary<E, E>(in.as<typename E::Storage>(),
                       out.as<typename E::Storage>(), in.numElements(), fn);
      });
    }
  });
}

void kernels::binary(BinaryKind kind, const Buffer &lhs, const Buffer &rhs,
                     Buffer &out) {
  visitDType(lhs.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)::value>;
    if constexpr (decltype(tag)::value != DType::I1) {
      visitBinaryKind(kind,
                      [&](auto fn) { mapBinary<E, E>(lhs, rhs, out, fn); });
    }
  });
}

void kernels::logical(LogicalKind kind, const Buffer &lhs, const Buffer &rhs,
                      Buffer &out) {
  using E = Elem<DType::I1>;
  switch (kind) {
  case LogicalKind::And:
    return mapBinary<E, E>(
        lhs, rhs, out, [](uint8_t a, uint8_t b) -> uint8_t { return a & b; });
  case LogicalKind::Or:
    return mapBinary<E, E>(
        lhs, rhs, out, [](uint8_t a, uint8_t b) -> uint8_t { return a | b; });
  case LogicalKind::Xor:
    return mapBinary<E, E>(
        lhs, rhs, out, [](uint8_t a, uint8_t b) -> uint8_t { return a ^ b; });
  }
}

void kernels::logicalNot(const Buffer &in, Buffer &out) {
  using E = Elem<DType::I1>;
  mapUnary<E, E>(in.as<uint8_t>(), out.as<uint8_t>(), in.numElements(),
                 [](uint8_t x) -> uint8_t { return !x; });
}

void kernels::compare(CompareKind kind, const Buffer &lhs, const Buffer &rhs,
                      Buffer &out) {
  visitDType(lhs.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)::value>;
    visitCompareKind(kind, [&](auto fn) {
      mapBinary<E, Elem<DType::I1>>(lhs, rhs, out, fn);
    });
  });
}

void kernels::select(const Buffer &cond, const Buffer &onTrue,
                     const Buffer &onFalse, Buffer &out) {
  // Element type independent: select raw element bits.
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const uint8_t *c = cond.as<uint8_t>();
    const T *t = onTrue.as<T>();
    const T *f = onFalse.as<T>();
    T *o = out.as<T>();
    std::array<Shape, 4> strides = {
        contiguousStrides(out.shape()),
        broadcastStrides(cond.shape(), out.shape()),
        broadcastStrides(onTrue.shape(), out.shape()),
        broadcastStrides(onFalse.shape(), out.shape())};
    forEachRun<4>(out.shape(), strides,
                  [&](const std::array<int64_t, 4> &off, int64_t n,
                      const std::array<int64_t, 4> &st) {
                    for (int64_t i = 0; i < n; ++i)
                      o[off[0] + i] = c[off[1] + i * st[1]]
                                          ? t[off[2] + i * st[2]]
                                          : f[off[3] + i * st[3]];
                  });
  };
  switch (dtypeSize(out.dtype())) {
  case 1:
    return run(uint8_t());
  case 2:
    return run(uint16_t());
  case 4:
    return run(uint32_t());
  default:
    return run(uint64_t());
  }
}

void kernels::cast(const Buffer &in, Buffer &out) {
  visitDType(in.dtype(), [&](auto srcTag) {
    using SrcE = Elem<decltype(srcTag)::value>;
    visitDType(out.dtype(), [&](auto dstTag) {
      using DstE = Elem<decltype(dstTag)::value>;
      castRun<SrcE, DstE>(in.as<typename SrcE::Storage>(),
                          out.as<typename DstE::Storage>(), in.numElements());
    });
  });
}
