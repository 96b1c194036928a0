//===- Executable.h - The fusec executable artifact (.fsx) ------*- C++ -*-===//
//
// What `fusec model.mlir --emit=exec -o model.fsx` writes: everything needed
// to run a compiled model, with no dependency on LLVM or MLIR. The kernels'
// PTX, the buffers (inputs, outputs, intermediates, constants with their
// data), and the ordered steps: kernel launches with their grid and block
// sizes and buffer arguments, and matrix products for cuBLASLt. The file
// format is documented in docs/executable-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_EXECUTABLE_H
#define FUSEC_RUNTIME_EXECUTABLE_H

#include "fusec/Support/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusec::rt {

/// Version of the format this code reads and writes.
inline constexpr uint32_t kExecutableVersion = 1;

enum class BufferKind : uint8_t {
  Input,    // An argument of the entry function, filled by the caller.
  Constant, // Initialised from the artifact's data.
  Temp,     // Written by a step before it is read.
  Alias,    // A view (reshape) of another buffer: same bytes, other shape.
};

struct BufferDesc {
  BufferKind kind = BufferKind::Temp;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Input: the argument position. Constant: index into `constants`.
  /// Alias: the buffer it views.
  int64_t index = -1;
  /// For readers of the artifact and error messages ("arg0", "%3", ...).
  std::string name;
};

/// How a kernel maps its work onto threads; chooses nothing about the code,
/// which is in the PTX, but lets a runtime recompute the grid for the
/// device it runs on (every kernel is written with grid-stride loops, so
/// any grid size is correct).
enum class KernelKind : uint8_t {
  Elementwise,  // `work` elements, `vectorWidth` per thread per iteration.
  RowReduction, // `work` rows of `rowLength` elements, one block per row.
  Reduction,    // `work` outputs, one thread each.
};

struct KernelDesc {
  std::string name; // extern "C" symbol in the PTX.
  KernelKind kind = KernelKind::Elementwise;
  int64_t work = 0;
  int64_t rowLength = 0;
  int64_t vectorWidth = 1;
  /// Index into Executable::ptx (kernels with identical code share one).
  int64_t ptxIndex = -1;
};

struct LaunchStep {
  int64_t kernel = -1;
  uint32_t gridSize = 1, blockSize = 1;
  /// Buffers passed as the kernel's pointer parameters, inputs first, then
  /// outputs, in the kernel's parameter order.
  std::vector<int64_t> args;
};

/// c = a @ b, batched with NumPy broadcasting of the leading dimensions;
/// the operand and result shapes are those of the buffers.
struct MatmulStep {
  int64_t a = -1, b = -1, c = -1;
};

struct Step {
  enum class Kind : uint8_t { Launch, Matmul } kind = Kind::Launch;
  LaunchStep launch;
  MatmulStep matmul;
};

struct Executable {
  uint32_t version = kExecutableVersion;
  std::string entry; // Name of the compiled function.
  std::string arch;  // e.g. "sm_90".
  std::vector<BufferDesc> buffers;
  std::vector<KernelDesc> kernels;
  std::vector<std::string> ptx;       // PTX text, one per distinct kernel.
  std::vector<std::string> constants; // Raw little-endian data.
  std::vector<Step> steps;
  std::vector<int64_t> inputs;  // Buffer per entry argument, in order.
  std::vector<int64_t> outputs; // Buffer per entry result, in order.
};

/// The names the format uses: "input", "constant", "temp", "alias";
/// "elementwise", "row-reduction", "reduction".
const char *bufferKindName(BufferKind kind);
const char *kernelKindName(KernelKind kind);

/// The bytes of the .fsx file.
std::string serializeExecutable(const Executable &exe);

/// Parses and validates an .fsx file: every index in range, every buffer
/// size consistent with its dtype and shape, constants of the right size,
/// a version this code reads. On failure returns nullopt and sets `error`.
std::optional<Executable> parseExecutable(std::string_view bytes,
                                          std::string &error);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_EXECUTABLE_H
