//===- Dataset.cpp - Training data in batches -----------------------------===//

#include "fusec/Driver/Dataset.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace fusec;

std::unique_ptr<MappedNpy> MappedNpy::open(const std::string &path,
                                           std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": " + errnoMessage(errno);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": not a regular file (training data is memory-mapped)";
    ::close(fd);
    return nullptr;
  }
  std::unique_ptr<MappedNpy> npy(new MappedNpy());
  npy->file = path;
  npy->mappingBytes = size_t(st.st_size);
  if (npy->mappingBytes > 0) {
    npy->mapping =
        mmap(nullptr, npy->mappingBytes, PROT_READ, MAP_PRIVATE, fd, 0);
    if (npy->mapping == MAP_FAILED) {
      npy->mapping = nullptr;
      error = path + ": cannot map the file: " + errnoMessage(errno);
      ::close(fd);
      return nullptr;
    }
  }
  ::close(fd);
  std::string_view bytes(static_cast<const char *>(npy->mapping),
                         npy->mappingBytes);
  NpyHeader header;
  if (!parseNpyHeader(bytes, header, error)) {
    error = path + ": " + error;
    return nullptr;
  }
  uint64_t found = npy->mappingBytes - header.dataOffset;
  if (found != header.dataBytes) {
    error = path + ": " +
            (found < header.dataBytes ? "truncated" : "trailing data") +
            ": expected " + std::to_string(header.dataBytes) +
            " bytes of data, found " + std::to_string(found);
    return nullptr;
  }
  if (header.shape.empty()) {
    error = path + ": a scalar has no samples (training data has a leading "
                   "sample dimension)";
    return nullptr;
  }
  if (header.fortranOrder || header.swapBytes) {
    error = path + ": stored in " +
            (header.fortranOrder ? "Fortran order" : "big-endian byte order") +
            ", which cannot be read in place; write it with "
            "np.save(path, np.ascontiguousarray(x, "
            "dtype=x.dtype.newbyteorder('<')))";
    return nullptr;
  }
  npy->type = header.type;
  npy->dims = header.shape;
  npy->row = dtypeSize(header.type);
  for (size_t d = 1; d < header.shape.size(); ++d)
    npy->row *= size_t(header.shape[d]); // The total was checked.
  npy->data =
      reinterpret_cast<const std::byte *>(npy->mapping) + header.dataOffset;
  return npy;
}

MappedNpy::~MappedNpy() {
  if (mapping)
    munmap(mapping, mappingBytes);
}

std::vector<int64_t> fusec::epochOrder(int64_t count, bool shuffle,
                                       uint64_t seed, int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(count));
  std::iota(order.begin(), order.end(), int64_t(0));
  if (!shuffle)
    return order;
  // One generator per (seed, epoch), so that an epoch's order does not
  // depend on how many epochs ran in this process.
  SplitMix64 rng{seed * 0xd1342543de82ef95ull + uint64_t(epoch) + 1};
  for (int64_t i = count - 1; i > 0; --i)
    std::swap(order[size_t(i)], order[size_t(rng.below(uint64_t(i) + 1))]);
  return order;
}

Buffer Dataset::batch(size_t b, const std::vector<int64_t> &order,
                      int64_t first, int64_t count, BufferAllocator &allocator,
                      std::string &error) const {
  const MappedNpy &array = *bindings[b].array;
  Shape shape = array.shape();
  shape[0] = count;
  Buffer out = allocator.allocate(array.dtype(), shape, error);
  if (!out)
    return Buffer();
  auto *dst = static_cast<std::byte *>(out.data());
  size_t row = array.rowBytes();
  for (int64_t i = 0; i < count; ++i)
    std::memcpy(dst + size_t(i) * row, array.rowData(order[size_t(first + i)]),
                row);
  if (array.dtype() == DType::I1) {
    auto *p = reinterpret_cast<unsigned char *>(dst);
    for (size_t i = 0; i < out.sizeInBytes(); ++i)
      p[i] = p[i] ? 1 : 0;
  }
  return out;
}
