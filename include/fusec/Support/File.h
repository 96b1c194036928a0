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
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fusec {

/// Temporary files start with this name (in the destination's directory),
/// so that a directory owner (the kernel cache) can recognise and remove
/// those a killed process left behind.
inline constexpr std::string_view kTemporaryFilePrefix = ".fusec-tmp-";

/// The bytes of a file, in malloc'd memory.
struct FileBytes {
  std::unique_ptr<char, decltype(&std::free)> data{nullptr, &std::free};
  size_t size = 0;
  /// Reading stopped at the limit with more of the file unread.
  bool more = false;
  std::string_view view() const { return std::string_view(data.get(), size); }
};

/// How many bytes in all a reader wants from a file whose first bytes are
/// `prefix` (UINT64_MAX: all of it, or not known yet). Called as the file
/// is read, so that a reader that learns the size from a header, or that
/// sees the bytes are not its format, stops there: a device or a pipe that
/// never ends (/dev/zero) is never read whole.
using ReadLimit = std::function<uint64_t(std::string_view prefix)>;

/// Reads the file at `path`: all of it, or with `limit` up to one byte past
/// what it wants (`more` then says the file goes on). On failure (missing,
/// unreadable, out of memory) returns false and sets `error` to a message
/// that starts with the path.
bool readFile(const std::string &path, FileBytes &out, std::string &error,
              const ReadLimit &limit = {});

enum class Durability {
  /// fsync before the rename: the contents survive a power loss (results,
  /// artifacts).
  Synced,
  /// No fsync: a crash may leave an empty or partial file under the final
  /// name, which the reader must detect (the kernel cache's checksums do).
  Unsynced,
};

/// Writes `contents` to `path` atomically: to a temporary file beside it,
/// renamed over it. A symbolic link is followed (the file it names is
/// replaced, the link stays); a device, FIFO or socket is written through,
/// never replaced; a directory is an error. On failure nothing is left
/// behind and `error` starts with the path.
bool writeFileAtomically(const std::string &path, std::string_view contents,
                         std::string &error,
                         Durability durability = Durability::Synced);

/// writeFileAtomically for several files, all or none: every file is
/// written to its temporary first, and only when all are complete are they
/// renamed into place (a full disk leaves none of them).
bool writeFilesAtomically(
    const std::vector<std::pair<std::string, std::string>> &files,
    std::string &error, Durability durability = Durability::Synced);

/// `contents` to `path`, or to standard output for "-", checking that every
/// byte was written (a full disk, a closed pipe: an error naming the path).
bool writeOutput(const std::string &path, std::string_view contents,
                 std::string &error);

/// Writes a file's whole contents into a descriptor, or returns false with
/// errno set.
using ContentWriter = std::function<bool(int fd)>;

/// writeOutput with the contents written by `write` as they are produced,
/// so that an output of hundreds of megabytes (a printed module) is never
/// held in memory; atomic for a file as above.
bool writeOutput(const std::string &path, const ContentWriter &write,
                 std::string &error);

/// Writes all of `size` bytes to `fd`, retrying short writes and EINTR.
bool writeAll(int fd, const char *data, size_t size);

/// mkdir -p (mode 0755 for the created components). On failure, `error`
/// names the component that could not be created and why.
bool createDirectories(const std::string &path, std::string &error);

/// strerror(err), thread-safe.
std::string errnoMessage(int err);

} // namespace fusec

#endif // FUSEC_SUPPORT_FILE_H
