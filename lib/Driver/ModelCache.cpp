//===- ModelCache.cpp - Whole-model compile cache -------------------------===//

#include "fusec/Driver/ModelCache.h"
#include "fusec/Codegen/Nvrtc.h"
#include "fusec/Support/Version.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <dlfcn.h>
#include <sys/stat.h>

using namespace fusec;

namespace {

/// Every bound option's name and value, one per line: what the key hashes.
class OptionFingerprint final : public OptionBinder {
public:
  std::string lines;

  void flag(std::string_view name, bool &value, std::string_view) override {
    add(name, value ? "1" : "0");
  }
  void integer(std::string_view name, int64_t &value, std::string_view,
               int64_t) override {
    add(name, std::to_string(value));
  }
  void number(std::string_view name, double &value, std::string_view) override {
    char buffer[64];
    snprintf(buffer, sizeof(buffer), "%a", value); // Exact.
    add(name, buffer);
  }
  void text(std::string_view name, std::string &value, std::string_view,
            std::string_view) override {
    add(name, std::to_string(value.size()) + ":" + value);
  }
  void list(std::string_view name, std::vector<std::string> &value,
            std::string_view, std::string_view, bool) override {
    std::string all;
    for (const std::string &v : value)
      all += std::to_string(v.size()) + ":" + v;
    add(name, all);
  }
  void bytes(std::string_view name, uint64_t &value, std::string_view,
             std::string_view) override {
    add(name, std::to_string(value));
  }
  void choice(std::string_view name, ChoiceRef value,
              std::string_view) override {
    add(name, std::to_string(value.get()));
  }

private:
  void add(std::string_view name, const std::string &value) {
    // The cache's own options and NVRTC's threads change no artifact.
    if (llvm::StringRef(name.data(), name.size()).starts_with("kernel-cache") ||
        name == "model-cache" || name == "compile-threads")
      return;
    lines += std::string(name) + "=" + value + "\n";
  }
};

/// The binary this code is part of (the fusec tool, the Python module):
/// its path, size and modification time. A rebuilt fusec whose version and
/// revision did not change (a developer's uncommitted edits) then misses
/// instead of returning what the earlier build compiled.
std::string binaryIdentity() {
  Dl_info info;
  struct stat st;
  if (!dladdr(reinterpret_cast<void *>(&binaryIdentity), &info) ||
      !info.dli_fname || ::stat(info.dli_fname, &st) != 0)
    return "unknown";
  return std::string(info.dli_fname) + " " + std::to_string(st.st_size) + " " +
         std::to_string(int64_t(st.st_mtim.tv_sec)) + "." +
         std::to_string(int64_t(st.st_mtim.tv_nsec));
}

} // namespace

std::unique_ptr<ModelCache> ModelCache::open(const Invocation &inv) {
  const KernelCacheOptions &options = inv.codegen.cache;
  std::string dir = kernelCacheDirectory(options);
  if (!options.kernelCache || !options.modelCache || dir.empty() ||
      inv.input == "-" || !llvm::StringRef(inv.input).ends_with(".mlir") ||
      !inv.import.constantInputs.empty())
    return nullptr;
  // NVRTC's identity, found without loading it (which costs more than a
  // hit): a model cache hit never loads NVRTC.
  std::string nvrtc = Nvrtc::identity();
  if (nvrtc == "none")
    return nullptr;
  auto model = llvm::MemoryBuffer::getFile(inv.input, /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
  if (!model)
    return nullptr;
  // (Copies: bindOptions takes its fields by reference.)
  Invocation copy = inv;
  OptionFingerprint fingerprint;
  copy.import.bindOptions(fingerprint);
  copy.pipeline.bindOptions(fingerprint);
  copy.codegen.bindOptions(fingerprint);
  copy.execution.bindOptions(fingerprint);
  std::string key = "fusec model artifact v1\n" + versionLine() + "\n" +
                    binaryIdentity() + "\nNVRTC " + nvrtc +
                    "\nentry=" + inv.entry + "\n" + fingerprint.lines +
                    "model " + std::to_string((*model)->getBufferSize()) + "\n";
  key += (*model)->getBuffer().str();
  return std::unique_ptr<ModelCache>(new ModelCache(
      dir, options.kernelCacheSize, "model-" + KernelCache::hashKey(key)));
}

std::optional<std::string> ModelCache::lookup() {
  return cache.lookup(cacheKey);
}

void ModelCache::store(const std::string &artifact) {
  cache.store(cacheKey, artifact);
}
