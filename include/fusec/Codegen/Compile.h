//===- Compile.h - A function to an executable artifact ---------*- C++ -*-===//
//
// The last stage of `fusec --emit=cuda|ptx|exec`: takes a function whose
// kernels are `fusec.fusion` regions (after the fusion pass) and produces
// the executable plan (rt::Executable): one buffer per tensor (reshapes are
// views), one launch per loop or reduction fusion with the CUDA kernel
// generated for it (identical fusions share a kernel), one matmul step per
// matmul fusion (its transposes and epilogue) or bare matmul, and the
// memory plan (every temporary's place in one arena,
// fusec/Runtime/MemoryPlan.h); then compiles the distinct kernels to PTX
// with NVRTC, a few kernels per program and programs in parallel, through
// the kernel cache.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CODEGEN_COMPILE_H
#define FUSEC_CODEGEN_COMPILE_H

#include "fusec/Codegen/CpuEmitter.h"
#include "fusec/Codegen/CudaEmitter.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Support/KernelCache.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>
#include <vector>

namespace fusec {

struct CompileOptions {
  TargetInfo target = *TargetInfo::get("sm_90");
  /// The user's options (the target above is codegen.gpuArch's).
  CodegenOptions codegen;
  /// Where compiled kernels are looked up and stored; nullptr: no cache.
  KernelCache *cache = nullptr;
};

/// How the kernels of a function are grouped into NVRTC programs (PTX
/// modules).
enum class PtxGrouping {
  /// A few kernels per program, at content-defined boundaries (stable
  /// cache entries when a model changes a little): for artifacts.
  ContentDefined,
  /// One program with every kernel: one PTX module a user can read and
  /// assemble with ptxas (`--emit=ptx`).
  OneModule,
};

struct CompileStats {
  int64_t launches = 0, distinctKernels = 0, matmuls = 0;
  /// PTX modules (groups of kernels compiled as one NVRTC program), those
  /// found in the cache (memory or disk) and those compiled by NVRTC.
  int64_t modules = 0, cacheHits = 0, compiled = 0;
  double nvrtcSeconds = 0; // Summed over kernels (threads overlap).
  double wallSeconds = 0;  // Of the whole PTX stage.
};

struct CompiledFunction {
  rt::Executable executable; // ptx filled by compileToPtx.
  /// The distinct kernels, in order of first launch; executable.kernels[i]
  /// is kernels[i].
  std::vector<KernelSource> kernels;
  /// For each distinct kernel, the first fusion it was generated from
  /// (where its compile errors are reported).
  std::vector<mlir::Operation *> kernelOrigins;
  /// For each step of the plan, the operation it computes (a fusion, or a
  /// matmul).
  std::vector<mlir::Operation *> stepOrigins;
  CompileStats stats;

  /// One translation unit with the prelude and every kernel: what
  /// `--emit=cuda` prints and what NVRTC compiles for `--emit=ptx`.
  std::string cudaSource() const;
  /// The CPU translation unit (CpuEmitter.h) of every kernel: what the
  /// cpu device compiles (rt::Executable::cpuSource).
  std::string cpuSource() const;
};

/// Builds the plan and the kernels' CUDA C++ for `func`. Errors (an
/// operation outside a fusion, a kernel code generation cannot produce,
/// a tensor type it cannot hold) are emitted at their locations.
mlir::FailureOr<CompiledFunction> planFunction(mlir::func::FuncOp func,
                                               const CompileOptions &options);

/// Compiles every kernel of `compiled` to PTX (executable.ptx: one module
/// per group of kernels, which KernelDesc::ptxIndex points into), through
/// the cache. A kernel NVRTC rejects is an error at its fusion's location,
/// with NVRTC's log; NVRTC missing is an error at `loc`.
mlir::LogicalResult
compileToPtx(CompiledFunction &compiled, const CompileOptions &options,
             mlir::Location loc,
             PtxGrouping grouping = PtxGrouping::ContentDefined);

/// The cache key of `source` compiled with `options` by the NVRTC that
/// Nvrtc::identity() names.
std::string kernelCacheKey(const std::string &source,
                           const std::vector<std::string> &options,
                           const std::string &nvrtcIdentity);

} // namespace fusec

#endif // FUSEC_CODEGEN_COMPILE_H
