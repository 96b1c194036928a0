//===- Options.h - The options of code generation ---------------*- C++ -*-===//
//
// One declaration of every code-generation option (fusec/Support/Options.h):
// the target, the f16 rounding mode, NVRTC's threads and the kernel cache.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CODEGEN_OPTIONS_H
#define FUSEC_CODEGEN_OPTIONS_H

#include "fusec/Support/Options.h"

#include <cstdint>
#include <string>

namespace fusec {

struct KernelCacheOptions {
  /// Use the kernel cache at all (memory and disk).
  bool kernelCache = true;
  /// The on-disk cache; empty: $FUSEC_CACHE_DIR, else $XDG_CACHE_HOME/fusec
  /// or ~/.cache/fusec. "off" keeps the cache in memory.
  std::string kernelCacheDir;
  /// Most bytes kept on disk (least recently used entries are evicted).
  uint64_t kernelCacheSize = 256ull << 20;
  /// With --emit=exec, take an unchanged model's artifact from the on-disk
  /// cache without compiling it (fusec/Driver/ModelCache.h).
  bool modelCache = true;

  void bindOptions(OptionBinder &binder);
};

/// The on-disk cache's directory per `options` (the default one when none
/// is given), or "" when the cache is kept in memory only ("off").
std::string kernelCacheDirectory(const KernelCacheOptions &options);

struct CodegenOptions {
  /// sm_80, sm_90 or sm_100 (TargetInfo::supported()).
  std::string gpuArch = "sm_90";
  /// Round f16/bf16 values after every operation, exactly as the reference
  /// interpreter does (bit-identical results). By default values stay in
  /// f32 registers through a kernel and are rounded once, at the store (and
  /// at explicit casts), which is faster and more accurate.
  bool fp16RoundEachOp = false;
  /// NVRTC compilations at once; 0: one per available core.
  int64_t compileThreads = 0;
  KernelCacheOptions cache;

  void bindOptions(OptionBinder &binder);
};

} // namespace fusec

#endif // FUSEC_CODEGEN_OPTIONS_H
