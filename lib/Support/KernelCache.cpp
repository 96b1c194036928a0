//===- KernelCache.cpp - Compiled kernel cache ----------------------------===//
//
// Hashing. hashKey(text) is XXH64(text, seed 0) followed by
// XXH64(text, seed 0x243F6A8885A308D3), each written as 16 lowercase hex
// digits (most significant first): 32 hex digits, 128 bits. XXH64 is the
// 64-bit xxHash of Yann Collet (xxhash.h, "XXH64"), written out below from
// its specification with every multi-byte read assembled little-endian
// byte by byte, so the result does not depend on the host's byte order,
// alignment rules or word size. The payload checksum of a disk entry is
// XXH64(payload, seed 0).
//
// Values are opaque bytes: the compiler stores a module's PTX under its key
// and the module's CUBIN under the key followed by "-cubin".
//
// Disk entries. The entry of a key is the file <dir>/<key>.ptx when the key
// is 1 to 200 characters of [A-Za-z0-9_-] (as hashKey's keys are), else
// <dir>/@<hashKey(key)>.ptx (so no key can name a path outside the
// directory). An entry is a 24-byte header followed by the payload, every
// integer little-endian:
//
//   offset  0  4 bytes  magic "FKC1"
//   offset  4  u32      format version (1)
//   offset  8  u64      payload length in bytes
//   offset 16  u64      XXH64(payload, seed 0)
//   offset 24  ...      payload
//
// An entry is valid only if the magic and version match, the file is
// exactly 24 + length bytes long and the checksum matches; anything else
// counts as `corrupt`, is removed (if the path still names the file that
// was read) and is a miss.
//
// Writing. store() writes the entry to a temporary file
// <dir>/.fusec-tmp-<pid>-<thread>-<counter> (O_CREAT | O_EXCL) and renames
// it over the entry: rename(2) is atomic, so a concurrent reader opens
// either the old file, the new one or nothing, never a partial one, and of
// several concurrent writers of one key the last rename wins with a
// complete file. There is no fsync: a crash can at worst leave an entry
// whose bytes did not reach the disk, which the checksum rejects.
//
// Eviction. After each disk store, the directory is scanned; regular files
// that look like entries (the names above) are summed. Temporaries are
// never counted; those older than an hour (left behind by a crashed
// process) are removed. Other files are ignored. If the sum exceeds the
// limit, entries are removed oldest modification time first until the sum
// is at most 90% of the limit. A disk hit refreshes the entry's
// modification time, so this is least-recently-used order.
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/KernelCache.h"
#include "fusec/Support/File.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <sys/types.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace fusec;

namespace {

//===----------------------------------------------------------------------===//
// XXH64
//===----------------------------------------------------------------------===//

constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ULL;
constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4FULL;
constexpr uint64_t kPrime3 = 0x165667B19E3779F9ULL;
constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ULL;
constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ULL;

/// The seed of the second half of hashKey (the first 16 hex digits of pi's
/// fractional part).
constexpr uint64_t kSecondSeed = 0x243F6A8885A308D3ULL;

uint64_t rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64 - r)); }

uint64_t readLE64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

uint32_t readLE32(const unsigned char *p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

void writeLE64(unsigned char *p, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void writeLE32(unsigned char *p, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    p[i] = static_cast<unsigned char>(v >> (8 * i));
}

uint64_t xxhRound(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = rotl64(acc, 31);
  return acc * kPrime1;
}

uint64_t xxhMergeRound(uint64_t acc, uint64_t val) {
  acc ^= xxhRound(0, val);
  return acc * kPrime1 + kPrime4;
}

uint64_t xxh64(const void *data, size_t len, uint64_t seed) {
  const auto *p = static_cast<const unsigned char *>(data);
  const unsigned char *end = p + len;
  uint64_t h;
  if (len >= 32) {
    uint64_t v1 = seed + kPrime1 + kPrime2;
    uint64_t v2 = seed + kPrime2;
    uint64_t v3 = seed;
    uint64_t v4 = seed - kPrime1;
    const unsigned char *limit = end - 32;
    do {
      v1 = xxhRound(v1, readLE64(p));
      v2 = xxhRound(v2, readLE64(p + 8));
      v3 = xxhRound(v3, readLE64(p + 16));
      v4 = xxhRound(v4, readLE64(p + 24));
      p += 32;
    } while (p <= limit);
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
    h = xxhMergeRound(h, v1);
    h = xxhMergeRound(h, v2);
    h = xxhMergeRound(h, v3);
    h = xxhMergeRound(h, v4);
  } else {
    h = seed + kPrime5;
  }
  h += static_cast<uint64_t>(len);
  while (end - p >= 8) {
    h ^= xxhRound(0, readLE64(p));
    h = rotl64(h, 27) * kPrime1 + kPrime4;
    p += 8;
  }
  if (end - p >= 4) {
    h ^= static_cast<uint64_t>(readLE32(p)) * kPrime1;
    h = rotl64(h, 23) * kPrime2 + kPrime3;
    p += 4;
  }
  while (p < end) {
    h ^= static_cast<uint64_t>(*p) * kPrime5;
    h = rotl64(h, 11) * kPrime1;
    ++p;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

void appendHex64(std::string &out, uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  for (int shift = 60; shift >= 0; shift -= 4)
    out.push_back(digits[(v >> shift) & 0xF]);
}

//===----------------------------------------------------------------------===//
// Entry format and names
//===----------------------------------------------------------------------===//

constexpr char kMagic[4] = {'F', 'K', 'C', '1'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 24;
constexpr const char kEntrySuffix[] = ".ptx";
constexpr size_t kEntrySuffixLen = sizeof(kEntrySuffix) - 1;
constexpr size_t kMaxPlainKeyLen = 200;
/// Temporaries younger than this may be in use by a live writer.
constexpr int64_t kStaleTempSeconds = 60 * 60;

bool isKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/// Whether `key` can be used verbatim as a file name stem.
bool isPlainKey(std::string_view key) {
  return !key.empty() && key.size() <= kMaxPlainKeyLen &&
         std::all_of(key.begin(), key.end(), isKeyChar);
}

/// Whether `name` (a directory entry) is a cache entry's file name.
bool isEntryName(std::string_view name) {
  if (name.size() <= kEntrySuffixLen ||
      name.substr(name.size() - kEntrySuffixLen) != kEntrySuffix)
    return false;
  std::string_view stem = name.substr(0, name.size() - kEntrySuffixLen);
  if (stem.front() == '@')
    stem.remove_prefix(1);
  return isPlainKey(stem);
}

/// A temporary of writeFileAtomically, possibly left by a killed writer.
bool isTempName(std::string_view name) {
  return name.size() > kTemporaryFilePrefix.size() &&
         name.substr(0, kTemporaryFilePrefix.size()) == kTemporaryFilePrefix;
}

std::string encodeEntry(std::string_view payload) {
  std::string out(kHeaderSize, '\0');
  auto *h = reinterpret_cast<unsigned char *>(&out[0]);
  std::memcpy(h, kMagic, 4);
  writeLE32(h + 4, kFormatVersion);
  writeLE64(h + 8, payload.size());
  writeLE64(h + 16, xxh64(payload.data(), payload.size(), 0));
  out.append(payload.data(), payload.size());
  return out;
}

//===----------------------------------------------------------------------===//
// POSIX helpers (EINTR-safe, never throwing)
//===----------------------------------------------------------------------===//

/// Reads up to `size` bytes; returns the count read (short only at EOF), or
/// -1 on error.
ssize_t readFull(int fd, char *data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return -1;
    }
    if (n == 0)
      break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

int closeFd(int fd) {
  // On Linux the descriptor is released even if close reports EINTR, so it
  // must not be retried.
  return ::close(fd);
}

int64_t nowSeconds() {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec);
}

enum class ReadResult { Missing, Corrupt, Ok };

/// Reads and validates the entry at `path`. On Corrupt, removes the file if
/// `path` still names the file that was read (a writer may have renamed a
/// good entry over it meanwhile). On Ok, refreshes its modification time.
ReadResult readEntry(const std::string &path, std::string &payload) {
  int fd;
  do
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return ReadResult::Missing; // ENOENT, or unreadable: a plain miss.

  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    closeFd(fd);
    return ReadResult::Missing;
  }

  bool valid = false;
  unsigned char header[kHeaderSize];
  uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size >= kHeaderSize &&
      readFull(fd, reinterpret_cast<char *>(header), kHeaderSize) ==
          static_cast<ssize_t>(kHeaderSize) &&
      std::memcmp(header, kMagic, 4) == 0 &&
      readLE32(header + 4) == kFormatVersion &&
      readLE64(header + 8) == size - kHeaderSize) {
    uint64_t length = size - kHeaderSize;
    payload.assign(length, '\0');
    char extra;
    if ((length == 0 ||
         readFull(fd, &payload[0], length) == static_cast<ssize_t>(length)) &&
        readFull(fd, &extra, 1) == 0 &&
        xxh64(payload.data(), payload.size(), 0) == readLE64(header + 16))
      valid = true;
  }

  if (valid) {
    // Best effort: an entry we cannot touch is still a hit.
    ::futimens(fd, nullptr);
    closeFd(fd);
    return ReadResult::Ok;
  }

  payload.clear();
  struct stat now;
  if (::lstat(path.c_str(), &now) == 0 && now.st_dev == st.st_dev &&
      now.st_ino == st.st_ino)
    ::unlink(path.c_str());
  closeFd(fd);
  return ReadResult::Corrupt;
}

/// `path` without trailing slashes ("/" becomes ""), to append "/name".
std::string withoutTrailingSlashes(std::string path) {
  while (!path.empty() && path.back() == '/')
    path.pop_back();
  return path;
}

bool equalsIgnoreCase(const char *a, const char *b) {
  for (; *a && *b; ++a, ++b) {
    char ca = *a >= 'A' && *a <= 'Z' ? char(*a - 'A' + 'a') : *a;
    char cb = *b >= 'A' && *b <= 'Z' ? char(*b - 'A' + 'a') : *b;
    if (ca != cb)
      return false;
  }
  return *a == *b;
}

} // namespace

//===----------------------------------------------------------------------===//
// KernelCache
//===----------------------------------------------------------------------===//

KernelCache::KernelCache(std::string directory, uint64_t maxDiskBytes)
    : dir(std::move(directory)), maxBytes(maxDiskBytes) {}

std::string KernelCache::defaultDirectory() {
  if (const char *env = std::getenv("FUSEC_CACHE_DIR")) {
    if (*env == '\0' || equalsIgnoreCase(env, "off") ||
        std::strcmp(env, "0") == 0)
      return "";
    return env;
  }
  // Per the XDG base directory specification, an empty or relative
  // XDG_CACHE_HOME is ignored.
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return withoutTrailingSlashes(xdg) + "/fusec";
  if (const char *home = std::getenv("HOME"); home && *home != '\0')
    return withoutTrailingSlashes(home) + "/.cache/fusec";
  return "";
}

std::string KernelCache::hashKey(std::string_view text) {
  std::string out;
  out.reserve(32);
  appendHex64(out, xxh64(text.data(), text.size(), 0));
  appendHex64(out, xxh64(text.data(), text.size(), kSecondSeed));
  return out;
}

std::string KernelCache::entryPath(const std::string &key) const {
  std::string path = dir;
  if (path.back() != '/')
    path += '/';
  if (isPlainKey(key))
    path += key;
  else
    path += '@' + hashKey(key);
  path += kEntrySuffix;
  return path;
}

std::optional<std::string> KernelCache::lookup(const std::string &key) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = memory.find(key);
    if (it != memory.end()) {
      ++counters.memoryHits;
      return it->second;
    }
    if (dir.empty()) {
      ++counters.misses;
      return std::nullopt;
    }
  }

  std::string payload;
  ReadResult result = readEntry(entryPath(key), payload);

  std::lock_guard<std::mutex> lock(mutex);
  if (result == ReadResult::Ok) {
    ++counters.diskHits;
    // A concurrent store() of this key in this process is newer: keep it.
    memory.emplace(key, payload);
    return payload;
  }
  if (result == ReadResult::Corrupt)
    ++counters.corrupt;
  ++counters.misses;
  return std::nullopt;
}

void KernelCache::store(const std::string &key, std::string_view value) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    memory[key] = std::string(value);
  }
  if (dir.empty())
    return;

  // No fsync: an entry cut short by a crash fails its checksum and is
  // recompiled.
  std::string error;
  bool ok = createDirectories(dir, error) &&
            writeFileAtomically(entryPath(key), encodeEntry(value), error,
                                Durability::Unsynced);
  if (!ok) {
    std::lock_guard<std::mutex> lock(mutex);
    ++counters.writeFailures;
    return;
  }
  evictIfNeeded();
}

void KernelCache::evictIfNeeded() {
  if (dir.empty() || maxBytes == 0)
    return;
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return;

  struct Entry {
    std::string path;
    uint64_t size;
    struct timespec mtime;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::string prefix = dir.back() == '/' ? dir : dir + '/';
  int64_t now = nowSeconds();
  while (struct dirent *de = ::readdir(d)) {
    std::string_view name = de->d_name;
    bool entry = isEntryName(name);
    bool temp = !entry && isTempName(name);
    if (!entry && !temp)
      continue;
    std::string path = prefix + std::string(name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    if (temp) {
      if (now - static_cast<int64_t>(st.st_mtim.tv_sec) > kStaleTempSeconds)
        ::unlink(path.c_str());
      continue;
    }
    uint64_t size = static_cast<uint64_t>(st.st_size);
    total += size;
    entries.push_back({std::move(path), size, st.st_mtim});
  }
  ::closedir(d);
  if (total <= maxBytes)
    return;

  std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
    if (a.mtime.tv_sec != b.mtime.tv_sec)
      return a.mtime.tv_sec < b.mtime.tv_sec;
    if (a.mtime.tv_nsec != b.mtime.tv_nsec)
      return a.mtime.tv_nsec < b.mtime.tv_nsec;
    return a.path < b.path;
  });
  uint64_t target = maxBytes - maxBytes / 10;
  int64_t removed = 0;
  for (const Entry &e : entries) {
    if (total <= target)
      break;
    if (::unlink(e.path.c_str()) == 0)
      ++removed;
    else if (errno != ENOENT)
      continue; // Still there: it still counts.
    // Removed by us or by another process: no longer counts.
    total -= e.size;
  }
  if (removed) {
    std::lock_guard<std::mutex> lock(mutex);
    counters.evicted += removed;
  }
}

KernelCacheStats KernelCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex);
  return counters;
}
