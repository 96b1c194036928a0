//===- Options.cpp - The options of code generation -----------------------===//

#include "fusec/Codegen/Options.h"
#include "fusec/Codegen/TargetInfo.h"
#include "fusec/Support/KernelCache.h"

#include "llvm/ADT/StringRef.h"

using namespace fusec;

void KernelCacheOptions::bindOptions(OptionBinder &binder) {
  binder.flag("kernel-cache", kernelCache,
              "Look compiled kernels up in the kernel cache and store them "
              "there");
  binder.text("kernel-cache-dir", kernelCacheDir,
              "Directory of the on-disk kernel cache (default: "
              "$FUSEC_CACHE_DIR, else $XDG_CACHE_HOME/fusec or "
              "~/.cache/fusec; 'off' keeps the cache in memory)",
              "dir");
  binder.bytes("kernel-cache-size", kernelCacheSize,
               "Most bytes the on-disk kernel cache keeps; least recently "
               "used kernels are evicted");
  binder.flag("model-cache", modelCache,
              "With --emit=exec, take the artifact of a model compiled before "
              "(unchanged, with the same options and fusec) from the on-disk "
              "cache without compiling it");
}

std::string fusec::kernelCacheDirectory(const KernelCacheOptions &options) {
  std::string dir = options.kernelCacheDir.empty()
                        ? KernelCache::defaultDirectory()
                        : options.kernelCacheDir;
  return llvm::StringRef(dir).equals_insensitive("off") ? std::string() : dir;
}

void CodegenOptions::bindOptions(OptionBinder &binder) {
  binder.group("codegen", "Code generation (`--emit=cuda|ptx|exec`)");
  ChoiceRef arch;
  const std::vector<std::string_view> &archs = TargetInfo::supported();
  arch.get = [this, &archs] {
    for (size_t i = 0; i < archs.size(); ++i)
      if (archs[i] == gpuArch)
        return int(i);
    return 0;
  };
  arch.set = [this, &archs](int i) { gpuArch = std::string(archs[size_t(i)]); };
  for (size_t i = 0; i < archs.size(); ++i)
    arch.choices.push_back({archs[i], int(i),
                            i == 0   ? "A100 (Ampere)"
                            : i == 1 ? "H100/H200 (Hopper)"
                                     : "B200 (Blackwell)"});
  binder.choice("gpu-arch", std::move(arch),
                "GPU architecture the kernels are compiled for");
  binder.flag("fp16-round-each-op", fp16RoundEachOp,
              "In generated kernels, round f16/bf16 values after every "
              "operation like the interpreter (default: once, at the store)");
  binder.integer("compile-threads", compileThreads,
                 "Kernels compiled at once by NVRTC (0: one per core)", 0);
  cache.bindOptions(binder);
}
