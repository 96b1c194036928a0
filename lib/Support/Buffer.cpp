//===- Buffer.cpp - Dense host tensors ------------------------------------===//

#include "fusec/Support/Buffer.h"
#include "fusec/Support/Float16.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

using namespace fusec;

std::optional<int64_t> fusec::checkedNumElements(const Shape &shape) {
  for (int64_t d : shape)
    if (d < 0)
      return std::nullopt;
  // An empty tensor has no elements whatever its other dimensions.
  for (int64_t d : shape)
    if (d == 0)
      return 0;
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  }
  return n;
}

std::string fusec::formatShape(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

namespace {
constexpr size_t kAlignment = 64;

/// Byte size of a tensor, or nullopt on overflow of size_t/int64_t.
std::optional<uint64_t> byteSize(DType type, const Shape &shape) {
  std::optional<int64_t> n = checkedNumElements(shape);
  if (!n)
    return std::nullopt;
  uint64_t bytes;
  if (__builtin_mul_overflow(uint64_t(*n), uint64_t(dtypeSize(type)), &bytes) ||
      bytes > uint64_t(INT64_MAX) - kAlignment)
    return std::nullopt;
  return bytes;
}

std::string describe(DType type, const Shape &shape) {
  return "tensor<" + formatShape(shape) + "x" + std::string(dtypeName(type)) +
         ">";
}

/// Zero-initialised, 64-byte aligned storage of at least one byte (so that
/// zero-element buffers are still non-null).
std::byte *allocateZeroed(uint64_t bytes) {
  uint64_t rounded = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (rounded == 0)
    rounded = kAlignment;
  void *p = std::aligned_alloc(kAlignment, rounded);
  if (p)
    std::memset(p, 0, rounded);
  return static_cast<std::byte *>(p);
}
} // namespace

Buffer Buffer::withShape(Shape newShape) const {
  Buffer b = *this;
  b.dims = std::move(newShape);
  return b;
}

double Buffer::getAsDouble(int64_t i) const {
  switch (type) {
  case DType::F32:
    return as<float>()[i];
  case DType::F16:
    return halfToFloat(as<uint16_t>()[i]);
  case DType::BF16:
    return bf16ToFloat(as<uint16_t>()[i]);
  case DType::I1:
    return as<uint8_t>()[i] ? 1.0 : 0.0;
  case DType::I32:
    return as<int32_t>()[i];
  case DType::I64:
    return double(as<int64_t>()[i]);
  case DType::F64:
    return as<double>()[i];
  }
  return 0.0;
}

Buffer Buffer::allocate(DType type, Shape shape, std::string *error) {
  std::optional<uint64_t> bytes = byteSize(type, shape);
  if (!bytes) {
    if (error)
      *error = "size of " + describe(type, shape) + " overflows";
    return Buffer();
  }
  std::byte *p = allocateZeroed(*bytes);
  if (!p) {
    if (error)
      *error = "cannot allocate " + std::to_string(*bytes) + " bytes for " +
               describe(type, shape);
    return Buffer();
  }
  Buffer b;
  b.type = type;
  b.count = *checkedNumElements(shape);
  b.dims = std::move(shape);
  b.storage = std::shared_ptr<std::byte>(p, [](std::byte *q) { std::free(q); });
  return b;
}

struct BufferAllocator::Counter {
  std::atomic<uint64_t> live{0};
  std::atomic<uint64_t> peak{0};
};

BufferAllocator::BufferAllocator(uint64_t limitBytes)
    : limit(limitBytes), counter(std::make_shared<Counter>()) {}

uint64_t BufferAllocator::liveBytes() const { return counter->live.load(); }
uint64_t BufferAllocator::peakBytes() const { return counter->peak.load(); }

uint64_t BufferAllocator::defaultLimit() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return uint64_t(pages) * uint64_t(pageSize) / 10 * 9;
}

Buffer BufferAllocator::allocate(DType type, Shape shape, std::string &error) {
  std::optional<uint64_t> bytes = byteSize(type, shape);
  if (!bytes) {
    error = "size of " + describe(type, shape) + " overflows";
    return Buffer();
  }
  uint64_t live = counter->live.load();
  if (limit && (*bytes > limit || live > limit - *bytes)) {
    error = "cannot allocate " + std::to_string(*bytes) + " bytes for " +
            describe(type, shape) + ": " + std::to_string(live) +
            " bytes are in use and the memory limit is " +
            std::to_string(limit) + " bytes";
    return Buffer();
  }
  Buffer b = Buffer::allocate(type, std::move(shape), &error);
  if (!b)
    return b;
  uint64_t now = counter->live.fetch_add(*bytes) + *bytes;
  uint64_t peak = counter->peak.load();
  while (now > peak && !counter->peak.compare_exchange_weak(peak, now)) {
  }
  // Re-wrap the storage so that releasing it also returns the bytes.
  std::shared_ptr<Counter> c = counter;
  std::byte *raw = b.storage.get();
  std::shared_ptr<std::byte> inner = std::move(b.storage);
  b.storage = std::shared_ptr<std::byte>(
      raw, [c, inner, n = *bytes](std::byte *) mutable {
        inner.reset();
        c->live.fetch_sub(n);
      });
  return b;
}
