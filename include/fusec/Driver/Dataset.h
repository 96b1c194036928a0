//===- Dataset.h - Training data in batches ---------------------*- C++ -*-===//
//
// The data of a training run: one memory-mapped .npy array per data
// argument of the loss function, all with the same leading sample
// dimension, read in batches of B samples in an order that is a fresh
// permutation per epoch (deterministic per seed) or the file's order. Only
// the rows of a batch are touched, so an array larger than memory trains
// as well as a small one; a batch is copied into a Buffer of the step's
// argument type. No dependency on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_DATASET_H
#define FUSEC_DRIVER_DATASET_H

#include "fusec/Support/Buffer.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fusec {

/// An .npy file mapped into memory (little-endian, C order: what NumPy
/// writes by default); rows are read from the mapping on demand.
class MappedNpy {
public:
  /// Maps `path`; nullptr with `error` (naming the path) when it cannot be
  /// read, is not a valid .npy file, or stores data in an order that cannot
  /// be read in place (Fortran order, big-endian: a hint says how to
  /// convert it).
  static std::unique_ptr<MappedNpy> open(const std::string &path,
                                         std::string &error);
  ~MappedNpy();
  MappedNpy(const MappedNpy &) = delete;
  MappedNpy &operator=(const MappedNpy &) = delete;

  DType dtype() const { return type; }
  const Shape &shape() const { return dims; }
  /// Bytes of one sample (the product of the dimensions after the first).
  size_t rowBytes() const { return row; }
  const std::byte *rowData(int64_t i) const { return data + size_t(i) * row; }
  const std::string &path() const { return file; }

private:
  MappedNpy() = default;
  std::string file;
  DType type = DType::F32;
  Shape dims;
  size_t row = 0;
  void *mapping = nullptr;
  size_t mappingBytes = 0;
  const std::byte *data = nullptr;
};

/// SplitMix64 (Steele, Lea and Flood, 2014): a small, well-mixed generator
/// whose whole state is one integer; the data order and --init draw from it.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n), without modulo bias (rejection).
  uint64_t below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do
      r = next();
    while (r >= limit);
    return r % n;
  }
  /// Uniform in [0, 1).
  double unit() { return double(next() >> 11) * 0x1.0p-53; }
};

/// One data argument: the step argument it feeds and its array.
struct DataBinding {
  std::string name;
  int64_t argument = 0;
  std::unique_ptr<MappedNpy> array;
};

/// The order of the samples in epoch `epoch` (0-based): a permutation of
/// [0, count) drawn from `seed` and `epoch` alone (so a resumed run draws
/// the same one), or the identity without `shuffle`.
std::vector<int64_t> epochOrder(int64_t count, bool shuffle, uint64_t seed,
                                int64_t epoch);

/// The arrays bound to the step's data arguments, with one sample count.
class Dataset {
public:
  Dataset() = default;
  Dataset(Dataset &&) = default;
  Dataset &operator=(Dataset &&) = default;

  void add(DataBinding binding) { bindings.push_back(std::move(binding)); }
  const std::vector<DataBinding> &getBindings() const { return bindings; }
  bool empty() const { return bindings.empty(); }
  /// The leading dimension shared by every array (0 when empty).
  int64_t samples() const {
    return bindings.empty() ? 0 : bindings.front().array->shape().front();
  }

  /// Copies samples `order[first, first + count)` of binding `b` into a
  /// new buffer of shape [count, ...] from `allocator`; a null buffer with
  /// `error` when the budget refuses it.
  Buffer batch(size_t b, const std::vector<int64_t> &order, int64_t first,
               int64_t count, BufferAllocator &allocator,
               std::string &error) const;

private:
  std::vector<DataBinding> bindings;
};

} // namespace fusec

#endif // FUSEC_DRIVER_DATASET_H
