//===- CpuEmitter.h - fusec.fusion to CPU C++ -------------------*- C++ -*-===//
//
// The CPU form of a kernel, what the cpu device (fusec/Runtime/Cpu/) runs:
// the fusion's values computed by the same op walk as the CUDA form
// (CudaEmitter.h), in plain C++ loops over a range of work units,
//
//   extern "C" void <name>_cpu(fusec_i64 begin, fusec_i64 end, void **args);
//   extern "C" const fusec_i64 <name>_cpu_units;
//
// where args holds the kernel's pointer parameters (inputs, then outputs,
// as a launch passes them) and any partition of [0, <name>_cpu_units) into
// ranges, run in any order or at once, computes the whole kernel. The
// loops (docs/codegen.md): rows of a loop fusion's outputs in blocks, the
// innermost dimension the vectorizable inner loop; a reduction's outputs
// one per unit, each reduced in the reference interpreter's order, so the
// results do not depend on how the units are split. Numerics are the CUDA
// form's (f32 compute, f16/bf16 rounded when stored or after each
// operation with fp16RoundEachOp, sums in f64).
//
// The translation unit of a function is cpuPrelude() followed by the CPU
// form of each of its distinct kernels; it includes only standard headers.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CODEGEN_CPUEMITTER_H
#define FUSEC_CODEGEN_CPUEMITTER_H

#include "fusec/Codegen/CudaEmitter.h"

#include <string>

namespace fusec {

/// What every CPU translation unit starts with: the prelude of the CUDA
/// forms with FUSEC_CPU defined, and the float16 conversions it uses.
std::string cpuPrelude();

/// The CPU form of `kernel`, the kernel emitKernel generated for `fusion`
/// with the same options (its name and in-place pairs are kept). Errors
/// are emitted at the fusion.
mlir::FailureOr<std::string> emitCpuKernel(FusionOp fusion,
                                           const KernelSource &kernel,
                                           const CodegenOptions &options);

} // namespace fusec

#endif // FUSEC_CODEGEN_CPUEMITTER_H
