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
                     std::string &error) {
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
  char *data = static_cast<char *>(std::malloc(capacity));
  size_t size = 0;
  int err = 0;
  while (data) {
    if (size == capacity) {
      size_t newCapacity = capacity * 2;
      char *grown = newCapacity > capacity
                        ? static_cast<char *>(std::realloc(data, newCapacity))
                        : nullptr;
      if (!grown) {
        std::free(data);
        data = nullptr;
        break;
      }
      data = grown;
      capacity = newCapacity;
    }
    ssize_t n = ::read(fd, data + size, capacity - size);
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
  if (!data) {
    error = path + ": cannot allocate memory to read the file";
    return false;
  }
  if (err) {
    std::free(data);
    error = path + ": cannot read: " + errnoMessage(err);
    return false;
  }
  out.data.reset(data);
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

bool fusec::writeFileAtomically(const std::string &path,
                                std::string_view contents, std::string &error,
                                Durability durability) {
  // The temporary lives next to the destination so that rename() is atomic.
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  std::string tmp;
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
  if (!writeAll(fd, contents.data(), contents.size()))
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
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return failWith("cannot rename the temporary file into place", errno);
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
