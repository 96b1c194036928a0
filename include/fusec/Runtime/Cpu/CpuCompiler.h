//===- CpuCompiler.h - The CPU forms of kernels, compiled -------*- C++ -*-===//
//
// Compiles an executable's CPU translation unit (Executable::cpuSource,
// fusec/Codegen/CpuEmitter.h) into a shared library with the system's C++
// compiler, for the CPU it runs on (-O3 -march=native, AVX-512's full
// width where there is one; -ffp-contract=off, so that a * b + c rounds
// twice as the reference interpreter does), and
// loads it. The library is cached (fusec/Support/KernelCache.h) under a key
// of the source, the compiler's identity (its --version), the flags and
// the CPU (/proc/cpuinfo's model and flags), so a model's kernels are
// compiled once per machine.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CPU_CPUCOMPILER_H
#define FUSEC_RUNTIME_CPU_CPUCOMPILER_H

#include <memory>
#include <string>
#include <vector>

namespace fusec::rt {

/// How long a compiler may run before it is stopped (clang 22 at -O2 never
/// finishes some reduction loops, for one).
inline constexpr double kDefaultCompileSeconds = 300;

struct CpuCompilerOptions {
  /// The compiler; empty: $FUSEC_CXX, else "c++".
  std::string compiler;
  /// Seconds the compiler may run (its `--version` too); 0:
  /// $FUSEC_CXX_TIMEOUT, else kDefaultCompileSeconds.
  double timeoutSeconds = 0;
  /// The cache directory; empty: KernelCache::defaultDirectory(); "off":
  /// memory only.
  std::string cacheDirectory;
};

/// A loaded library of CPU kernels, closed with the object.
class CpuLibrary {
public:
  ~CpuLibrary();
  /// The address of `symbol` in the library, or nullptr.
  void *lookup(const std::string &symbol) const;
  /// "compiled by g++ (Debian 12.2.0-14) 12.2.0 in 1.2 s", "from the cache".
  const std::string &origin() const { return how; }

private:
  friend std::unique_ptr<CpuLibrary>
  compileCpuLibrary(const std::string &, const CpuCompilerOptions &,
                    std::string &);
  void *handle = nullptr;
  std::string how;
};

/// The flags the kernels are compiled with.
const std::vector<std::string> &cpuCompilerFlags();

/// Whether the compiler `options` name runs (its `--version`, asked once
/// per process); if not, sets `why`.
bool haveCpuCompiler(const CpuCompilerOptions &options, std::string &why);

/// Compiles (or finds in the cache) and loads `source`; nullptr with
/// `error` (the compiler's message) otherwise.
std::unique_ptr<CpuLibrary> compileCpuLibrary(const std::string &source,
                                              const CpuCompilerOptions &options,
                                              std::string &error);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CPU_CPUCOMPILER_H
