//===- KernelCache.h - Compiled kernel cache --------------------*- C++ -*-===//
//
// A cache of compiled kernels (PTX), in memory and on disk, so that
// compiling the same model again costs a lookup per kernel. The key is a
// hash of everything the compiled output depends on (kernel source, NVRTC
// version, options, target architecture), computed by the caller.
//
// The disk cache lives in a directory (by default $XDG_CACHE_HOME/fusec or
// ~/.cache/fusec; FUSEC_CACHE_DIR overrides, FUSEC_CACHE_DIR=off disables
// it). Each entry is one file written atomically (temporary file + rename),
// so concurrent processes and crashes never leave a half-written entry; a
// corrupt or truncated entry (magic, length and checksum are checked) is
// treated as a miss and rewritten. The directory is kept under a size limit
// by evicting the least recently used entries (reads refresh an entry's
// modification time). No dependency on LLVM or MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_KERNELCACHE_H
#define FUSEC_SUPPORT_KERNELCACHE_H

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fusec {

struct KernelCacheStats {
  int64_t memoryHits = 0, diskHits = 0, misses = 0, corrupt = 0, evicted = 0,
          writeFailures = 0;
};

class KernelCache {
public:
  /// `directory` empty: memory only. `maxDiskBytes` 0: no limit.
  explicit KernelCache(std::string directory,
                       uint64_t maxDiskBytes = uint64_t(256) << 20);

  /// The default directory per the rules above, or "" when disabled.
  static std::string defaultDirectory();

  /// A stable 128-bit hash of `text` as 32 hex digits, for keys.
  static std::string hashKey(std::string_view text);

  /// The cached value for `key` (memory first, then disk), or nullopt.
  /// Thread-safe.
  std::optional<std::string> lookup(const std::string &key);

  /// Stores `value` in memory and, if enabled, on disk (atomically), then
  /// evicts least recently used disk entries beyond the size limit.
  /// Thread-safe; disk failures are counted, not fatal.
  void store(const std::string &key, std::string_view value);

  KernelCacheStats stats() const;
  const std::string &directory() const { return dir; }

private:
  std::string entryPath(const std::string &key) const;
  void evictIfNeeded();

  std::string dir;
  uint64_t maxBytes;
  mutable std::mutex mutex;
  std::unordered_map<std::string, std::string> memory;
  KernelCacheStats counters;
};

} // namespace fusec

#endif // FUSEC_SUPPORT_KERNELCACHE_H
