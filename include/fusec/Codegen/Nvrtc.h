//===- Nvrtc.h - NVRTC, loaded at run time ----------------------*- C++ -*-===//
//
// CUDA C++ to PTX and CUBIN with NVRTC. The library is opened with dlopen the
// first time it is needed, so that fusec builds, runs and emits CUDA C++ on
// machines without the CUDA toolkit; only PTX generation needs it. Search
// order: $FUSEC_NVRTC (a path); libnvrtc.so.13, then libnvrtc.so, in the
// directories of $LD_LIBRARY_PATH, the toolkit found at build time,
// /usr/local/cuda/lib64 and the system library directories; at last the
// dynamic loader's own search for those names.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CODEGEN_NVRTC_H
#define FUSEC_CODEGEN_NVRTC_H

#include <string>
#include <vector>

namespace fusec {

class Nvrtc {
public:
  /// The process-wide instance, or nullptr when NVRTC cannot be loaded
  /// (`whyNot` then says why).
  static Nvrtc *get(std::string *whyNot = nullptr);

  /// Identifies the NVRTC library get() loads (or would load) without
  /// loading it (which takes milliseconds): its resolved path, size and
  /// modification time, or the loaded library's version when fusec cannot
  /// locate the file itself. Part of every kernel cache key, so that a
  /// model compiled again hits the cache without loading NVRTC at all.
  static std::string identity();

  /// "13.0".
  const std::string &version() const { return versionText; }

  /// Options fusec compiles every kernel with for `arch` ("sm_90"): exact
  /// IEEE arithmetic (no fused multiply-add contraction, no fast math), so
  /// that kernels compute what the reference interpreter computes.
  static std::vector<std::string> options(const std::string &arch);

  struct Result {
    bool ok = false;
    std::string ptx;   // When ok.
    std::string cubin; // When ok: the ELF image for the options' sm_XX.
    std::string log;   // NVRTC's log (warnings, or the errors).
  };
  /// Compiles `source` (named `name` in messages). Thread-safe. Options
  /// that change only how fast NVRTC compiles, not what it produces, are
  /// added here where this NVRTC has them (`--minimal` from 12.4: no
  /// texture, device-runtime or device-launch declarations to parse, which
  /// fusec's kernels never use).
  Result compile(const std::string &source, const std::string &name,
                 const std::vector<std::string> &options) const;

private:
  Nvrtc() = default;
  struct Api;
  const Api *api = nullptr;
  std::string versionText;
  bool hasMinimal = false;
};

} // namespace fusec

#endif // FUSEC_CODEGEN_NVRTC_H
