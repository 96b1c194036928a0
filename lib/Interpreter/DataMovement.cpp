//===- DataMovement.cpp - Reference data movement kernels ----------------===//
//
// broadcast_to, transpose, slice and concat: strided copies.
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

} // namespace

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
