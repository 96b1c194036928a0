//===- Executable.h - The fusec executable artifact (.fsx) ------*- C++ -*-===//
//
// What `fusec model.mlir --emit=exec -o model.fsx` writes: everything needed
// to run a compiled model, with no dependency on LLVM or MLIR. The kernels'
// PTX and their machine code (CUBIN) for the architecture compiled for,
// their CPU form (C++ for the cpu device), the
// buffers (inputs, constants with their data, temporaries with
// their place in the arena of the memory plan, views), and the ordered
// steps: kernel launches with their grid and block sizes and buffer
// arguments, matrix products for cuBLASLt with their epilogues, and
// convolutions (a gather kernel and a product, or a device's own). The
// file format is documented in docs/executable-format.md.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_EXECUTABLE_H
#define FUSEC_RUNTIME_EXECUTABLE_H

#include "fusec/Support/DType.h"
#include "fusec/Support/FusionKind.h"
#include "fusec/Support/Window.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fusec::rt {

/// Version of the format this code reads and writes.
inline constexpr uint32_t kExecutableVersion = 5;

/// The most threads a launch may have (grid x block): generated kernels
/// index with 32-bit ints below 2^30 elements, and a grid-stride index
/// reaches the element count plus the grid's thread count.
inline constexpr int64_t kMaxLaunchThreads = int64_t(1) << 30;

/// Every temporary starts at a multiple of this many bytes of the arena, so
/// that every vectorised access (16 bytes) and every cuBLASLt operand (256
/// bytes, NVIDIA's advice) stays aligned.
inline constexpr int64_t kArenaAlignment = 256;

enum class BufferKind : uint8_t {
  Input,    // An argument of the entry function, filled by the caller.
  Constant, // Initialised from the artifact's data.
  Temp,     // Written by a step before it is read; lives in the arena.
  Alias,    // A view (reshape) of another buffer: same bytes, other shape.
};

struct BufferDesc {
  BufferKind kind = BufferKind::Temp;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Input: the argument position. Constant: index into `constants`.
  /// Alias: the buffer it views (never an alias itself).
  int64_t index = -1;
  /// Temp: its first byte in the arena, a multiple of kArenaAlignment.
  /// -1 for every other kind.
  int64_t offset = -1;
  /// For readers of the artifact and error messages ("arg0", "t3", ...).
  std::string name;
};

/// One pointer parameter of a kernel: the dtype and the most elements the
/// kernel's code reads (an input) or writes (an output) there, from the
/// start. A launch must pass a buffer of that dtype holding at least that
/// many elements, so that the reader can prove every launch stays inside
/// its buffers. (Kernels with identical code are one kernel: a slice of the
/// first rows of a [8,4] tensor reads what a [2,4] tensor holds, 8.)
struct KernelParam {
  DType dtype = DType::F32;
  int64_t elements = 0;
  bool operator==(const KernelParam &o) const {
    return dtype == o.dtype && elements == o.elements;
  }
};

/// A kernel: how it maps its work onto threads (its kind: loop,
/// row_reduction or reduction, never matmul), which lets a runtime
/// recompute the grid for the device it runs on (every kernel is written
/// with grid-stride loops, so any grid size is correct), and which of its
/// outputs may take the storage of an input.
struct KernelDesc {
  std::string name; // extern "C" symbol in the PTX.
  FusionKind kind = FusionKind::Loop;
  /// Pointer parameters: `numInputs` inputs, then `numOutputs` outputs.
  int64_t numInputs = 0, numOutputs = 0;
  /// Each parameter's dtype and element count, inputs then outputs.
  std::vector<KernelParam> params;
  int64_t work = 0;
  int64_t rowLength = 0;
  int64_t vectorWidth = 1;
  /// (input parameter, output number) pairs: that output may occupy exactly
  /// the bytes of that input, because every thread reads each element of
  /// the input at the position it then writes in the output, before it
  /// writes it, and the two have the same size. The memory plan may use it
  /// when the input is not read after the launch.
  std::vector<std::pair<int64_t, int64_t>> inPlace;
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

/// What cuBLASLt applies to the product before storing it (the
/// CUBLASLT_EPILOGUE_* of the same names; gelu is the tanh approximation).
enum class MatmulEpilogue : uint8_t {
  None,
  Bias,
  Relu,
  ReluBias,
  Gelu,
  GeluBias
};

/// c = epilogue(op(a) @ op(b) [+ bias]), batched with NumPy broadcasting of
/// the leading dimensions, where op(x) swaps the last two dimensions of x
/// when its transpose flag is set. With a = [..., M, K] (or [..., K, M]
/// transposed) and b = [..., K, N] (or [..., N, K]), c is
/// [broadcast batch..., M, N]; bias, when the epilogue has one, is a buffer
/// of N elements added to every row. The product is accumulated in f32 (or
/// better) and the epilogue computed in f32; c's dtype is a's or f32.
struct MatmulStep {
  int64_t a = -1, b = -1, c = -1;
  bool transposeA = false, transposeB = false;
  MatmulEpilogue epilogue = MatmulEpilogue::None;
  int64_t bias = -1; // -1 unless the epilogue has a bias.
};

/// A 2-D convolution of an NHWC input with one group, in the form every
/// device can run: `gather` (a generated kernel) writes the input's windows
/// `product.a` ([N*OH*OW, KH*KW*C], im2col), and `product` multiplies them
/// with the filter `product.b` ([KH*KW*C, F], HWIO flattened, or [F,
/// KH*KW*C] transposed) into `product.c` ([N*OH*OW, F]) with its epilogue.
/// A device with convolutions of its own (the cpu device, through oneDNN)
/// computes `product.c` from `input` directly and skips the gather: the
/// windows buffer is read by no other step. The geometry is that of
/// `fusec.conv2d` (padding [top, bottom, left, right] of zeros).
struct ConvStep {
  int64_t input = -1; // [N, H, W, C]
  Window2D window;
  LaunchStep gather;
  MatmulStep product;
};

struct Step {
  enum class Kind : uint8_t { Launch, Matmul, Conv } kind = Kind::Launch;
  LaunchStep launch;
  MatmulStep matmul;
  ConvStep conv;
};

/// The memory plan's figures, stored in the header and re-derived by the
/// reader (they must agree): the arena's size, the liveness lower bound
/// (the most bytes of temporaries live during one step, each rounded up to
/// kArenaAlignment, in-place pairs counted once), the first step where that
/// many bytes are live, and the workspace cuBLASLt gets for matmul steps.
struct MemoryFigures {
  int64_t arenaBytes = 0;
  int64_t lowerBoundBytes = 0;
  int64_t peakStep = 0;
  int64_t workspaceBytes = 0;
};

struct Executable {
  uint32_t version = kExecutableVersion;
  std::string entry; // Name of the compiled function.
  std::string arch;  // e.g. "sm_90".
  MemoryFigures memory;
  std::vector<BufferDesc> buffers;
  std::vector<KernelDesc> kernels;
  std::vector<std::string> ptx; // PTX text, one per distinct kernel group.
  /// Empty, or the CUBIN (an ELF image for `arch`) of each PTX text: what
  /// a device of exactly that architecture loads instead of compiling the
  /// PTX at load time.
  std::vector<std::string> cubin;
  std::vector<std::string> constants; // Raw little-endian data.
  /// The C++ translation unit of the kernels' CPU forms
  /// (fusec/Codegen/CpuEmitter.h), which the cpu device compiles; empty in
  /// an artifact without one.
  std::string cpuSource;
  std::vector<Step> steps;
  std::vector<int64_t> inputs;  // Buffer per entry argument, in order.
  std::vector<int64_t> outputs; // Buffer per entry result, in order.
};

/// The names the format uses: "input", "constant", "temp", "alias";
/// "none", "bias", "relu", "relu_bias", "gelu", "gelu_bias".
const char *bufferKindName(BufferKind kind);
const char *matmulEpilogueName(MatmulEpilogue epilogue);
/// Whether the epilogue adds a bias.
bool epilogueHasBias(MatmulEpilogue epilogue);

/// Size in bytes of a buffer's data (elements x dtype size); the reader
/// guarantees it does not overflow.
inline int64_t bufferBytes(const BufferDesc &b) {
  for (int64_t d : b.shape)
    if (d == 0)
      return 0; // [2^62, 4, 0] has no bytes; its other products overflow.
  int64_t n = int64_t(dtypeSize(b.dtype));
  for (int64_t d : b.shape)
    n *= d;
  return n;
}

/// The buffer whose bytes `buffer` uses: itself, or the buffer an alias
/// views (the reader guarantees an alias never views an alias).
inline int64_t rootBuffer(const Executable &exe, int64_t buffer) {
  const BufferDesc &b = exe.buffers[size_t(buffer)];
  return b.kind == BufferKind::Alias ? b.index : buffer;
}

/// `s` quoted the way the format writes names ("double quotes", printable
/// ASCII as itself, the delimiter and '\' escaped, other bytes as \xhh),
/// for messages that stay one line of ASCII whatever a name holds.
std::string quoteName(std::string_view s, char delim = '"');

/// "[2,3,4]", "[]": a list as the format writes it.
std::string formatDims(const std::vector<int64_t> &values);

/// The bytes of the .fsx file.
std::string serializeExecutable(const Executable &exe);

/// Parses and validates an .fsx file: every index in range, every buffer
/// size consistent with its dtype and shape, constants of the right size,
/// every matmul step one cuBLASLt computes, a memory plan in which no two
/// temporaries live at the same time share a byte, a version this code
/// reads. On failure returns nullopt and sets `error`.
std::optional<Executable> parseExecutable(std::string_view bytes,
                                          std::string &error);

/// The checks of parseExecutable after the syntax (every index, size,
/// launch, matmul step and the memory plan); on failure sets `error`
/// ("invalid .fsx file: ...").
bool validateExecutable(const Executable &exe, std::string &error);

/// Reads and parses the file at `path`; errors name the file.
std::optional<Executable> readExecutableFile(const std::string &path,
                                             std::string &error);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_EXECUTABLE_H
