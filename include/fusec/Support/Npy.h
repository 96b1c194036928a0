//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reading and writing the NumPy .npy format (versions 1.0, 2.0 and 3.0) for
// the dtypes fusec supports:
//
//   fusec   descr written   descr accepted when reading
//   f32     '<f4'           '<f4' '>f4' '=f4'
//   f16     '<f2'           '<f2' '>f2' '=f2'
//   bf16    '<V2'           '<V2' '|V2'   (what NumPy writes for ml_dtypes'
//                                          bfloat16: raw 16-bit patterns)
//   i1      '|b1'           '|b1' '<b1' '>b1' '=b1' (nonzero bytes read as 1)
//   i32     '<i4'           '<i4' '>i4' '=i4'
//   i64     '<i8'           '<i8' '>i8' '=i8'
//
// Big-endian data is byte-swapped and Fortran-order data is transposed, so the
// resulting Buffer is always little-endian, C order. Every malformed input
// (bad magic, truncated header or data, unparsable header dictionary, unknown
// dtype, negative or overflowing shape, trailing bytes) is an error with a
// message, never a crash. No dependency on LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_NPY_H
#define FUSEC_SUPPORT_NPY_H

#include "fusec/Support/Buffer.h"

#include <string>
#include <string_view>

namespace fusec {

/// What an .npy header says: the array, and where its data lies in the file.
struct NpyHeader {
  DType type = DType::F32;
  Shape shape;
  /// Stored in Fortran order (rank > 1) / in the other byte order.
  bool fortranOrder = false, swapBytes = false;
  /// The data's offset in the file and its size (checked not to overflow).
  uint64_t dataOffset = 0, dataBytes = 0;
};

/// Parses the header at the start of `bytes` (at least the whole header;
/// the data need not follow). Errors as parseNpy's.
bool parseNpyHeader(std::string_view bytes, NpyHeader &out, std::string &error);

/// Parses the bytes of an .npy file. On failure returns a null Buffer and sets
/// `error` to a message that does not include the file name. The data buffer
/// is allocated through `allocator` when given (so the memory budget
/// applies), otherwise with Buffer::allocate.
Buffer parseNpy(std::string_view bytes, std::string &error,
                BufferAllocator *allocator = nullptr);

/// Reads and parses `path`; errors are prefixed with the path.
Buffer readNpy(const std::string &path, std::string &error,
               BufferAllocator *allocator = nullptr);

/// The .npy bytes of `buffer` (version 1.0; 2.0 if the header needs it).
std::string serializeNpy(const Buffer &buffer);

/// serializeNpy + writeFileAtomically (fusec/Support/File.h).
bool writeNpy(const std::string &path, const Buffer &buffer,
              std::string &error);

} // namespace fusec

#endif // FUSEC_SUPPORT_NPY_H
