//===- Kernels.cpp - Reference CPU kernels --------------------------------===//
//
// Loops are written so that the common cases vectorise: operands are visited
// as runs along the innermost (collapsed) dimension with a stride of 0 or 1
// handled by dedicated loops, and the element type is a template parameter,
// so there is no per-element dispatch.
//
//===----------------------------------------------------------------------===//

#include "fusec/Interpreter/Kernels.h"
#include "fusec/Support/Float16.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

using namespace fusec;
using namespace fusec::kernels;

namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Storage type, compute type and the conversions between them. Floats
/// compute in f32; integers in themselves; i1 as uint8_t 0/1.
template <DType D> struct Elem;
template <> struct Elem<DType::F32> {
  using Storage = float;
  using Compute = float;
  static float load(float v) { return v; }
  static float store(float v) { return v; }
  static float storeWide(double v) { return float(v); }
};
template <> struct Elem<DType::F16> {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return halfToFloat(v); }
  static uint16_t store(float v) { return floatToHalf(v); }
  static uint16_t storeWide(double v) { return doubleToHalf(v); }
};
template <> struct Elem<DType::BF16> {
  using Storage = uint16_t;
  using Compute = float;
  static float load(uint16_t v) { return bf16ToFloat(v); }
  static uint16_t store(float v) { return floatToBF16(v); }
  static uint16_t storeWide(double v) { return doubleToBF16(v); }
};
template <> struct Elem<DType::I1> {
  using Storage = uint8_t;
  using Compute = uint8_t;
  static uint8_t load(uint8_t v) { return v; }
  static uint8_t store(uint8_t v) { return v != 0; }
};
template <> struct Elem<DType::I32> {
  using Storage = int32_t;
  using Compute = int32_t;
  static int32_t load(int32_t v) { return v; }
  static int32_t store(int32_t v) { return v; }
};
template <> struct Elem<DType::I64> {
  using Storage = int64_t;
  using Compute = int64_t;
  static int64_t load(int64_t v) { return v; }
  static int64_t store(int64_t v) { return v; }
};

template <DType D> using DTypeTag = std::integral_constant<DType, D>;

/// Calls fn(DTypeTag<D>{}) for the runtime dtype `t`.
template <typename Fn> void visitDType(DType t, Fn &&fn) {
  switch (t) {
  case DType::F32:
    return fn(DTypeTag<DType::F32>());
  case DType::F16:
    return fn(DTypeTag<DType::F16>());
  case DType::BF16:
    return fn(DTypeTag<DType::BF16>());
  case DType::I1:
    return fn(DTypeTag<DType::I1>());
  case DType::I32:
    return fn(DTypeTag<DType::I32>());
  case DType::I64:
    return fn(DTypeTag<DType::I64>());
  }
}

//===----------------------------------------------------------------------===//
// Strided iteration
//===----------------------------------------------------------------------===//

/// a * b, wrapping instead of overflowing. Products of dimensions only
/// overflow for empty tensors with huge other dimensions, whose strides are
/// then never used; wrapping keeps computing them defined behaviour.
int64_t mulWrap(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) * uint64_t(b));
}

Shape contiguousStrides(const Shape &shape) {
  Shape strides(shape.size());
  int64_t s = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = s;
    s = mulWrap(s, shape[i]);
  }
  return strides;
}

/// Element strides of a tensor of shape `in` broadcast to `out` (NumPy rules,
/// right-aligned): 0 along broadcast dimensions.
Shape broadcastStrides(const Shape &in, const Shape &out) {
  Shape strides(out.size(), 0);
  Shape inStrides = contiguousStrides(in);
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    strides[offset + i] =
        (in[i] == 1 && out[offset + i] != 1) ? 0 : inStrides[i];
  return strides;
}

/// Visits the index space `shape` as runs along its innermost dimension. For
/// each of the N operands `strides[k]` gives its element stride per dimension.
/// Dimensions of size 1 are dropped and adjacent dimensions that are
/// contiguous for every operand are merged, so that e.g. a same-shape
/// elementwise op is a single run. body(offsets, n, innerStrides) handles
/// elements offsets[k] + i * innerStrides[k] for i in [0, n).
template <size_t N, typename Body>
void forEachRun(const Shape &shape, const std::array<Shape, N> &strides,
                Body &&body) {
  Shape dims;
  std::array<Shape, N> st;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0)
      return;
    if (shape[d] == 1)
      continue;
    bool merge = !dims.empty();
    for (size_t k = 0; k < N && merge; ++k)
      merge = st[k].back() == strides[k][d] * shape[d];
    if (merge) {
      dims.back() *= shape[d];
      for (size_t k = 0; k < N; ++k)
        st[k].back() = strides[k][d];
      continue;
    }
    dims.push_back(shape[d]);
    for (size_t k = 0; k < N; ++k)
      st[k].push_back(strides[k][d]);
  }
  std::array<int64_t, N> inner{};
  int64_t n = 1;
  if (!dims.empty()) {
    n = dims.back();
    for (size_t k = 0; k < N; ++k)
      inner[k] = st[k].back();
    dims.pop_back();
    for (size_t k = 0; k < N; ++k)
      st[k].pop_back();
  }
  // Odometer over the outer dimensions.
  size_t rank = dims.size();
  Shape counter(rank, 0);
  std::array<int64_t, N> offsets{};
  while (true) {
    body(offsets, n, inner);
    size_t d = rank;
    while (true) {
      if (d == 0)
        return;
      --d;
      if (++counter[d] < dims[d]) {
        for (size_t k = 0; k < N; ++k)
          offsets[k] += st[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k)
        offsets[k] -= st[k][d] * (dims[d] - 1);
      counter[d] = 0;
    }
  }
}

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

/// IEEE 754-2019 maximum: NaN if either is NaN, +0 > -0.
inline float ieeeMax(float a, float b) {
  if (a > b)
    return a;
  if (b > a)
    return b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a + b; // At least one NaN; the sum is a NaN.
}
inline float ieeeMin(float a, float b) {
  if (a < b)
    return a;
  if (b < a)
    return b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a + b;
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
  float operator()(float x) const {
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
      return 1.0f / std::sqrt(x);
    case UnaryKind::Reciprocal:
      return 1.0f / x;
    case UnaryKind::Tanh:
      return std::tanh(x);
    case UnaryKind::Sigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case UnaryKind::Relu:
      return x > 0.0f ? x : (x != x ? x : 0.0f);
    case UnaryKind::Erf:
      return std::erf(x);
    case UnaryKind::GeluErf:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752440f));
    case UnaryKind::GeluTanh:
      return 0.5f * x *
             (1.0f +
              std::tanh(0.79788456080286535588f * (x + 0.044715f * x * x * x)));
    }
    return x;
  }
  template <typename T> T operator()(T x) const {
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

template <typename T> T saturatingFloatToInt(float f) {
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
  constexpr bool srcFloat = std::is_same_v<SrcC, float>;
  constexpr bool dstFloat = std::is_same_v<typename DstE::Compute, float>;
  constexpr bool dstBool = std::is_same_v<DstE, Elem<DType::I1>>;
  for (int64_t i = 0; i < n; ++i) {
    SrcC v = SrcE::load(in[i]);
    if constexpr (dstBool) {
      out[i] = v != SrcC(0); // NaN != 0 holds: NaN -> 1.
    } else if constexpr (srcFloat && dstFloat) {
      out[i] = DstE::store(v);
    } else if constexpr (srcFloat) {
      out[i] = saturatingFloatToInt<DstS>(v);
    } else if constexpr (dstFloat) {
      if constexpr (std::is_same_v<DstE, Elem<DType::F32>>)
        out[i] = float(int64_t(v)); // One rounding (cvtsi2ss).
      else
        out[i] = DstE::store(roundToOddFromInt(int64_t(v)));
    } else {
      out[i] = DstS(uint64_t(int64_t(v))); // Wrap to the narrower type.
    }
  }
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// out (contiguous) = in viewed through per-output-dimension strides from a
/// base offset. Copies elements as raw integers of the element size.
template <typename T>
void stridedCopyT(const Buffer &in, int64_t base, const Shape &inStrides,
                  Buffer &out) {
  const T *src = in.as<T>() + base;
  T *dst = out.as<T>();
  std::array<Shape, 2> strides = {contiguousStrides(out.shape()), inStrides};
  forEachRun<2>(out.shape(), strides,
                [&](const std::array<int64_t, 2> &off, int64_t n,
                    const std::array<int64_t, 2> &st) {
                  T *po = dst + off[0];
                  const T *pi = src + off[1];
                  if (st[1] == 1)
                    std::memcpy(po, pi, size_t(n) * sizeof(T));
                  else if (st[1] == 0)
                    std::fill(po, po + n, *pi);
                  else
                    for (int64_t i = 0; i < n; ++i)
                      po[i] = pi[i * st[1]];
                });
}

void stridedCopy(const Buffer &in, int64_t base, const Shape &inStrides,
                 Buffer &out) {
  switch (dtypeSize(in.dtype())) {
  case 1:
    return stridedCopyT<uint8_t>(in, base, inStrides, out);
  case 2:
    return stridedCopyT<uint16_t>(in, base, inStrides, out);
  case 4:
    return stridedCopyT<uint32_t>(in, base, inStrides, out);
  default:
    return stridedCopyT<uint64_t>(in, base, inStrides, out);
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

template <typename E>
void reduceT(ReduceKind kind, const Buffer &in,
             const std::vector<int64_t> &axes, Buffer &out) {
  using S = typename E::Storage;
  using C = typename E::Compute;
  constexpr bool isFloatT = std::is_same_v<C, float>;
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
        return ieeeMax(float(a), x);
      case ReduceKind::Min:
        return ieeeMin(float(a), x);
      default:
        return a + double(x);
      }
    } else {
      switch (kind) {
      case ReduceKind::Max:
        return std::max<Acc>(a, x);
      case ReduceKind::Min:
        return std::min<Acc>(a, x);
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
  if constexpr (std::is_same_v<C, float>) {
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

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

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

void kernels::broadcastTo(const Buffer &in, Buffer &out) {
  stridedCopy(in, 0, broadcastStrides(in.shape(), out.shape()), out);
}

void kernels::transpose(const Buffer &in, const std::vector<int64_t> &perm,
                        Buffer &out) {
  Shape inStrides = contiguousStrides(in.shape());
  Shape strides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d)
    strides[d] = inStrides[size_t(perm[d])];
  stridedCopy(in, 0, strides, out);
}

void kernels::slice(const Buffer &in, const std::vector<int64_t> &start,
                    const std::vector<int64_t> &stride, Buffer &out) {
  // Start and stride are only meaningful where elements are read: nothing
  // is read from an empty result, and a dimension of size 1 has no stride.
  if (out.numElements() == 0)
    return;
  Shape inStrides = contiguousStrides(in.shape());
  int64_t base = 0;
  Shape strides(start.size());
  for (size_t d = 0; d < start.size(); ++d) {
    base += start[d] * inStrides[d];
    strides[d] = out.shape()[d] > 1 ? stride[d] * inStrides[d] : 0;
  }
  stridedCopy(in, base, strides, out);
}

void kernels::concat(const std::vector<const Buffer *> &inputs, int64_t axis,
                     Buffer &out) {
  if (out.numElements() == 0)
    return;
  const Shape &shape = out.shape();
  size_t esize = dtypeSize(out.dtype());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[size_t(d)];
  for (size_t d = size_t(axis) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  size_t outRow = size_t(shape[size_t(axis)] * inner) * esize;
  auto *dst = static_cast<std::byte *>(out.data());
  size_t column = 0;
  for (const Buffer *in : inputs) {
    size_t row = size_t(in->shape()[size_t(axis)] * inner) * esize;
    const auto *src = static_cast<const std::byte *>(in->data());
    if (row)
      for (int64_t o = 0; o < outer; ++o)
        std::memcpy(dst + size_t(o) * outRow + column, src + size_t(o) * row,
                    row);
    column += row;
  }
}

void kernels::reduce(ReduceKind kind, const Buffer &in,
                     const std::vector<int64_t> &axes, Buffer &out) {
  visitDType(in.dtype(), [&](auto tag) {
    if constexpr (decltype(tag)::value != DType::I1)
      reduceT<Elem<decltype(tag)::value>>(kind, in, axes, out);
  });
}

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
