//===- File.cpp - Reading and writing whole files -------------------------===//

#include "fusec/Support/File.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace fusec;

std::string fusec::errnoMessage(int err) {
  char buffer[256];
  // The GNU strerror_r returns the message (possibly not in `buffer`).
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  return strerror_r(err, buffer, sizeof buffer);
#else
  if (strerror_r(err, buffer, sizeof buffer) != 0)
    return "error " + std::to_string(err);
  return buffer;
#endif
}

bool fusec::readFile(const std::string &path, FileBytes &out,
                     std::string &error, const ReadLimit &limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot open: " + errnoMessage(errno);
    return false;
  }
  struct stat st;
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    error = path + ": is a directory";
    return false;
  }
  // malloc'd memory, so that running out of it is an error rather than
  // std::terminate. The size from fstat is only a hint: the buffer grows if
  // the file turns out longer (or is not a regular file).
  size_t capacity = 4096;
  if (S_ISREG(st.st_mode) && st.st_size > 0)
    capacity = size_t(st.st_size) + 1;
  // The most bytes to read: what `limit` wants plus one, to see whether the
  // file goes on.
  auto wanted = [&](size_t size) -> uint64_t {
    if (!limit)
      return UINT64_MAX;
    uint64_t w = limit(std::string_view(out.data.get(), size));
    return w == UINT64_MAX ? w : w + 1;
  };
  out.data.reset(static_cast<char *>(std::malloc(capacity)));
  out.more = false;
  size_t size = 0;
  int err = 0;
  bool outOfMemory = !out.data;
  while (!outOfMemory) {
    uint64_t want = wanted(size);
    if (size >= want) {
      out.more = true;
      break;
    }
    if (size == capacity) {
      size_t newCapacity = capacity * 2;
      if (want != UINT64_MAX && newCapacity > want)
        newCapacity = size_t(want);
      char *grown =
          newCapacity > capacity
              ? static_cast<char *>(std::realloc(out.data.get(), newCapacity))
              : nullptr;
      if (!grown) {
        outOfMemory = true;
        break;
      }
      out.data.release();
      out.data.reset(grown);
      capacity = newCapacity;
    }
    size_t room = capacity - size;
    if (want - size < room)
      room = size_t(want - size);
    ssize_t n = ::read(fd, out.data.get() + size, room);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      err = errno;
      break;
    }
    if (n == 0)
      break;
    size += size_t(n);
  }
  ::close(fd);
  if (outOfMemory) {
    out.data.reset();
    error = path + ": cannot allocate memory to read the file";
    return false;
  }
  if (err) {
    out.data.reset();
    error = path + ": cannot read: " + errnoMessage(err);
    return false;
  }
  out.size = size;
  return true;
}

bool fusec::writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    if (n == 0)
      return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

/// A name no other writer (process or thread) uses at the same time.
static std::string temporaryName() {
  static std::atomic<uint64_t> counter{0};
  return std::string(kTemporaryFilePrefix) + std::to_string(::getpid()) + "-" +
         std::to_string(
             std::hash<std::thread::id>()(std::this_thread::get_id())) +
         "-" + std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
}

namespace {

/// Where writing `path` goes: the file a symbolic link names, and whether
/// it exists and is not a regular file (then written through, in place).
struct Destination {
  std::string path;
  bool writeThrough = false;
};

bool resolveDestination(const std::string &path, Destination &out,
                        std::string &error) {
  out.path = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return true; // A new file.
  if (S_ISLNK(st.st_mode)) {
    char *real = ::realpath(path.c_str(), nullptr);
    if (!real && errno == ENOENT) {
      // A link to a file that does not exist yet: the file is created
      // where it points.
      char target[4096];
      ssize_t n = ::readlink(path.c_str(), target, sizeof target - 1);
      if (n > 0) {
        target[n] = '\0';
        size_t slash = path.rfind('/');
        out.path = target[0] == '/' || slash == std::string::npos
                       ? std::string(target)
                       : path.substr(0, slash + 1) + target;
        return true;
      }
    }
    if (!real) {
      error = path +
              ": a symbolic link to nothing writable: " + errnoMessage(errno);
      return false;
    }
    out.path = real;
    std::free(real);
    if (::stat(out.path.c_str(), &st) != 0)
      return true;
  }
  if (S_ISDIR(st.st_mode)) {
    error = path + ": is a directory";
    return false;
  }
  out.writeThrough = !S_ISREG(st.st_mode);
  return true;
}

/// Writes a new temporary file beside `path` with `write` (synced when
/// asked); its name in `tmp`.
bool writeTemporary(const std::string &path, const ContentWriter &write,
                    std::string &tmp, std::string &error,
                    Durability durability) {
  // The temporary lives next to the destination so that rename() is atomic.
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  int fd = -1;
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = dir + temporaryName();
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || (errno != EEXIST && errno != EINTR))
      break;
  }
  if (fd < 0) {
    error = path + ": cannot create a temporary file next to it: " +
            errnoMessage(errno);
    return false;
  }
  auto failWith = [&](const char *what, int err) {
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    error = path + ": " + what + ": " + errnoMessage(err);
    return false;
  };
  if (!write(fd))
    return failWith("cannot write", errno);
  if (durability == Durability::Synced && ::fsync(fd) != 0 && errno != EINVAL &&
      errno != EROFS)
    return failWith("cannot sync", errno);
  // On Linux the descriptor is released even if close reports EINTR, so it
  // is not retried.
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0)
    return failWith("cannot close", errno);
  return true;
}

/// Writes into an existing device, FIFO or socket.
bool writeThrough(const std::string &path, const ContentWriter &write,
                  std::string &error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot open: " + errnoMessage(errno);
    return false;
  }
  bool ok = write(fd);
  int err = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok)
    error = path + ": cannot write: " + errnoMessage(err);
  return ok;
}

ContentWriter bytesWriter(std::string_view contents) {
  return [contents](int fd) {
    return writeAll(fd, contents.data(), contents.size());
  };
}

/// One file, written atomically by `write`.
bool writeAtomically(const std::string &path, const ContentWriter &write,
                     std::string &error, Durability durability) {
  Destination destination;
  if (!resolveDestination(path, destination, error))
    return false;
  if (destination.writeThrough)
    return writeThrough(destination.path, write, error);
  std::string tmp;
  if (!writeTemporary(destination.path, write, tmp, error, durability))
    return false;
  if (::rename(tmp.c_str(), destination.path.c_str()) != 0) {
    error = path + ": cannot rename the temporary file into place: " +
            errnoMessage(errno);
    ::unlink(tmp.c_str());
    return false;
  }
  return true;
}

} // namespace

bool fusec::writeFileAtomically(const std::string &path,
                                std::string_view contents, std::string &error,
                                Durability durability) {
  return writeAtomically(path, bytesWriter(contents), error, durability);
}

bool fusec::writeFilesAtomically(
    const std::vector<std::pair<std::string, std::string>> &files,
    std::string &error, Durability durability) {
  std::vector<Destination> destinations(files.size());
  for (size_t i = 0; i < files.size(); ++i)
    if (!resolveDestination(files[i].first, destinations[i], error))
      return false;
  std::vector<std::string> temporaries;
  auto removeTemporaries = [&] {
    for (const std::string &tmp : temporaries)
      ::unlink(tmp.c_str());
  };
  for (size_t i = 0; i < files.size(); ++i) {
    if (destinations[i].writeThrough)
      continue;
    std::string tmp;
    if (!writeTemporary(destinations[i].path, bytesWriter(files[i].second), tmp,
                        error, durability)) {
      removeTemporaries();
      return false;
    }
    temporaries.push_back(tmp);
  }
  size_t next = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    if (destinations[i].writeThrough) {
      if (!writeThrough(destinations[i].path, bytesWriter(files[i].second),
                        error)) {
        removeTemporaries();
        return false;
      }
      continue;
    }
    const std::string &tmp = temporaries[next++];
    if (::rename(tmp.c_str(), destinations[i].path.c_str()) != 0) {
      error = files[i].first +
              ": cannot rename the temporary file into place: " +
              errnoMessage(errno);
      removeTemporaries();
      return false;
    }
  }
  return true;
}

bool fusec::writeOutput(const std::string &path, std::string_view contents,
                        std::string &error) {
  return writeOutput(path, bytesWriter(contents), error);
}

bool fusec::writeOutput(const std::string &path, const ContentWriter &write,
                        std::string &error) {
  if (path != "-")
    return writeAtomically(path, write, error, Durability::Synced);
  if (!write(STDOUT_FILENO)) {
    error = "<stdout>: cannot write: " + errnoMessage(errno);
    return false;
  }
  return true;
}

bool fusec::createDirectories(const std::string &path, std::string &error) {
  if (path.empty()) {
    error = "cannot create a directory with an empty name";
    return false;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return true;
    error =
        "cannot create directory '" + path + "': a file of that name exists";
    return false;
  }
  for (size_t pos = 1; pos <= path.size(); ++pos) {
    if (pos != path.size() && path[pos] != '/')
      continue;
    if (path[pos - 1] == '/')
      continue;
    std::string prefix = path.substr(0, pos);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      error =
          "cannot create directory '" + prefix + "': " + errnoMessage(errno);
      return false;
    }
  }
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    error = "cannot create directory '" + path + "': not a directory";
    return false;
  }
  return true;
}
