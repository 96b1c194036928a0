//===- ModelCache.h - Whole-model compile cache -----------------*- C++ -*-===//
//
// `fusec MODEL --emit=exec -o OUT` for a model compiled before, unchanged,
// with unchanged options, by the same fusec and NVRTC: the artifact comes
// from the cache without parsing the model or running the pipeline (the
// anchors: JAX's persistent compilation cache, Inductor's FX graph cache).
// Entries live in the kernel cache's store (fusec/Support/KernelCache.h):
// the same directory, atomic checksummed entries, least recently used ones
// evicted under --kernel-cache-size; --no-kernel-cache and
// --kernel-cache-dir=off turn it off with the kernel cache.
//
// The key is a hash of: a format tag, fusec's version and git revision,
// the binary's identity (path, size, modification time: a rebuilt fusec
// misses), NVRTC's identity (Nvrtc::identity: found without loading it), the
// model file's bytes, and the name and value of every option that can change
// the artifact (import, pipeline, code generation and execution options and
// --entry; the kernel cache's own options and --compile-threads do not). Models
// read from standard input, ONNX models (their weights may live in other files)
// and --constant-input (its values are files) are not cached.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_MODELCACHE_H
#define FUSEC_DRIVER_MODELCACHE_H

#include "fusec/Driver/Invocation.h"
#include "fusec/Support/KernelCache.h"

#include <memory>
#include <optional>
#include <string>

namespace fusec {

class ModelCache {
public:
  /// The cache for `inv`, or nullptr when its artifact is not cached (see
  /// above; also without NVRTC or when the model cannot be read, which the
  /// compile then reports).
  static std::unique_ptr<ModelCache> open(const Invocation &inv);

  /// The cached artifact, if any.
  std::optional<std::string> lookup();
  void store(const std::string &artifact);

  const std::string &key() const { return cacheKey; }

private:
  ModelCache(std::string directory, uint64_t maxBytes, std::string key)
      : cache(std::move(directory), maxBytes), cacheKey(std::move(key)) {}

  KernelCache cache;
  std::string cacheKey;
};

} // namespace fusec

#endif // FUSEC_DRIVER_MODELCACHE_H
