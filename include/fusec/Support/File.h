//===- File.h - Reading and writing whole files ------------------*- C++
//-*-===//
//
// The one implementation of fusec's file I/O (plain POSIX, no LLVM): whole
// files read into memory with allocation failures reported rather than
// fatal, files written atomically (a temporary next to the destination,
// renamed over it, so that a failure or a crash never leaves a half-written
// file), and directories created with their parents.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_FILE_H
#define FUSEC_SUPPORT_FILE_H

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

namespace fusec {

/// Temporary files start with this name (in the destination's directory),
/// so that a directory owner (the kernel cache) can recognise and remove
/// those a killed process left behind.
inline constexpr std::string_view kTemporaryFilePrefix = ".fusec-tmp-";

/// The bytes of a file, in malloc'd memory.
struct FileBytes {
  std::unique_ptr<char, decltype(&std::free)> data{nullptr, &std::free};
  size_t size = 0;
  std::string_view view() const { return std::string_view(data.get(), size); }
};

/// Reads the whole file at `path`. On failure (missing, unreadable, out of
/// memory) returns false and sets `error` to a message that starts with
/// the path.
bool readFile(const std::string &path, FileBytes &out, std::string &error);

enum class Durability {
  /// fsync before the rename: the contents survive a power loss (results,
  /// artifacts).
  Synced,
  /// No fsync: a crash may leave an empty or partial file under the final
  /// name, which the reader must detect (the kernel cache's checksums do).
  Unsynced,
};

/// Writes `contents` to `path` atomically. On failure nothing is left
/// behind and `error` starts with the path.
bool writeFileAtomically(const std::string &path, std::string_view contents,
                         std::string &error,
                         Durability durability = Durability::Synced);

/// Writes all of `size` bytes to `fd`, retrying short writes and EINTR.
bool writeAll(int fd, const char *data, size_t size);

/// mkdir -p (mode 0755 for the created components). On failure, `error`
/// names the component that could not be created and why.
bool createDirectories(const std::string &path, std::string &error);

/// strerror(err), thread-safe.
std::string errnoMessage(int err);

} // namespace fusec

#endif // FUSEC_SUPPORT_FILE_H
