//===- Buffer.h - Dense host tensors ----------------------------*- C++ -*-===//
//
// A Buffer is a dense, row-major (C order) host tensor: an element type, a
// static shape and reference-counted storage. Buffers are cheap to copy (they
// share storage), which lets reshape alias its operand. Allocation goes
// through a BufferAllocator that enforces a byte budget, so a model whose
// tensors do not fit fails with a message instead of exhausting the machine.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_BUFFER_H
#define FUSEC_SUPPORT_BUFFER_H

#include "fusec/Support/DType.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fusec {

using Shape = std::vector<int64_t>;

/// Number of elements of `shape`, or nullopt if a dimension is negative or the
/// product overflows int64_t.
std::optional<int64_t> checkedNumElements(const Shape &shape);

/// Formats a shape as "2x3x4" ("scalar" for rank 0).
std::string formatShape(const Shape &shape);

class BufferAllocator;

class Buffer {
public:
  /// A null buffer: no storage, usable only to signal failure.
  Buffer() = default;

  explicit operator bool() const { return storage != nullptr; }

  DType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  int64_t rank() const { return int64_t(dims.size()); }
  int64_t numElements() const { return count; }
  size_t sizeInBytes() const { return size_t(count) * dtypeSize(type); }

  void *data() { return storage.get(); }
  const void *data() const { return storage.get(); }
  template <typename T> T *as() { return static_cast<T *>(data()); }
  template <typename T> const T *as() const {
    return static_cast<const T *>(data());
  }

  /// A buffer of the same storage viewed with another shape of the same
  /// element count (the caller checks the count).
  Buffer withShape(Shape newShape) const;

  /// Reads element `i` widened to double (i1 -> 0/1). For tests and printing.
  double getAsDouble(int64_t i) const;

  /// Allocates without a budget. Returns a null buffer when the size
  /// overflows or memory is exhausted; `error` (if given) then says why.
  static Buffer allocate(DType type, Shape shape, std::string *error = nullptr);

private:
  friend class BufferAllocator;
  DType type = DType::F32;
  Shape dims;
  int64_t count = 0;
  std::shared_ptr<std::byte> storage;
};

/// Hands out buffers while the bytes alive stay within a limit. The count is
/// shared with the buffers, so it drops as soon as the last user of a buffer
/// lets go of it. The allocator must outlive nothing: buffers keep the shared
/// counter alive themselves.
class BufferAllocator {
public:
  /// `limitBytes` == 0 means no limit beyond what the system grants.
  explicit BufferAllocator(uint64_t limitBytes = 0);

  /// Returns a zero-initialised buffer, or a null buffer with `error` set.
  Buffer allocate(DType type, Shape shape, std::string &error);

  uint64_t limitBytes() const { return limit; }
  uint64_t liveBytes() const;
  uint64_t peakBytes() const;

  /// A default budget: 90% of physical memory.
  static uint64_t defaultLimit();

private:
  struct Counter;
  uint64_t limit;
  std::shared_ptr<Counter> counter;
};

} // namespace fusec

#endif // FUSEC_SUPPORT_BUFFER_H
