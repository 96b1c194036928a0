//===- ExecutableTest.cpp - Tests of the .fsx executable format -----------===//
//
// The expected files below are written by hand from the specification in
// docs/executable-format.md, not produced by the code under test; the PTX
// lengths were counted with Python's len(), and the constant bytes are the
// IEEE 754 little-endian encodings of the values in the comments. Expected
// executables are built field by field here.
//
// Each validation rule is checked by breaking one thing in a valid
// executable (or in the bytes of a valid file) and expecting the exact
// message. Robustness: every prefix of a valid file, thousands of random
// mutations, and headers that declare huge counts and lengths.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/MemoryPlan.h"
#include "fusec/Runtime/PlanPrinter.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

// A PTX module with two kernels (shared by kernels 0 and 1), and one with a
// third kernel. 207 and 117 bytes.
const char kPtx0[] = ".version 8.4\n"
                     ".target sm_90\n"
                     ".address_size 64\n"
                     "\n"
                     ".visible .entry fused_add(\n"
                     "\t.param .u64 p0,\n"
                     "\t.param .u64 p1,\n"
                     "\t.param .u64 p2\n"
                     ")\n"
                     "{\n"
                     "\tret;\n"
                     "}\n"
                     "\n"
                     ".visible .entry fused_max(\n"
                     "\t.param .u64 p0,\n"
                     "\t.param .u64 p1\n"
                     ")\n"
                     "{\n"
                     "\tret;\n"
                     "}\n";
const char kPtx1[] = ".version 8.4\n"
                     ".target sm_90\n"
                     ".address_size 64\n"
                     "\n"
                     ".visible .entry fused_sum(\n"
                     "\t.param .u64 p0,\n"
                     "\t.param .u64 p1\n"
                     ")\n"
                     "{\n"
                     "\tret;\n"
                     "}\n";

// The .fsx header of makeModel(), as `head model.fsx` shows it.
//
// Its memory plan, by hand from the definitions in MemoryPlan.h: the live
// ranges are %mm [0,1], "sum" [1,4] (its alias "reshaped" is an output, so it
// lives until after the last step, step 4), "row max" [2,3], "total" [3,4]
// (an output). Kernel 0 lets its output 0 take the bytes of its input 0; at
// step 1 "%mm" ends and "sum" starts with the same 120 bytes and no other
// argument views "%mm", so "sum" takes offset 0 in place. Aligned sizes are
// 256 bytes each; live bytes per step: 256, 256 (the pair counted once),
// 512, 768, 512: the lower bound is 768, first reached at step 3, and the
// arena of 768 bytes meets it. The workspace is 32 MiB.
const char kModelHeader[] = R"fsx(fusec-executable 5
entry "forward"
arch "sm_90"
memory arena 768 lower-bound 768 peak-step 3 workspace 33554432
buffers 8
buffer 0 input 0 f32 [2,3,4] "x"
buffer 1 input 1 f32 [4,5] "weight \"W\""
buffer 2 constant 0 f32 [5] "bias\x0aterm"
buffer 3 temp f32 [2,3,5] offset 0 "%mm"
buffer 4 temp f32 [2,3,5] offset 0 "sum \xc3\xa9"
buffer 5 alias 4 f32 [6,5] "reshaped"
buffer 6 temp f32 [6] offset 256 "row max"
buffer 7 temp f32 [] offset 512 "total"
kernels 3
kernel 0 loop inputs 2 outputs 1 param-dtypes [f32,f32,f32] param-elements [30,5,30] work 30 row-length 0 vector-width 2 in-place [0,0] ptx 0 "fused_add"
kernel 1 row_reduction inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [30,6] work 6 row-length 5 vector-width 1 in-place [] ptx 0 "fused_max"
kernel 2 reduction inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [6,1] work 1 row-length 0 vector-width 1 in-place [] ptx 1 "fused_sum"
steps 4
step 0 matmul a 0 b 1 c 3 transpose-a 0 transpose-b 0 epilogue none bias -1
step 1 launch kernel 0 grid 1 block 128 args [3,2,4]
step 2 launch kernel 1 grid 6 block 32 args [5,6]
step 3 launch kernel 2 grid 1 block 1 args [6,7]
inputs [0,1]
outputs [7,5]
ptx-texts 2
ptx 0 offset 0 length 207
ptx 1 offset 207 length 117
cubins 0
constants 1
constant 0 offset 324 length 20
cpu-sources 0
payload 344
)fsx";

// 1.0f, -2.0f, 0.5f, 3.0f, 0.25f as little-endian IEEE 754 binary32.
const char kBiasBytes[] = "\x00\x00\x80\x3f"
                          "\x00\x00\x00\xc0"
                          "\x00\x00\x00\x3f"
                          "\x00\x00\x40\x40"
                          "\x00\x00\x80\x3e";

template <size_t N> std::string bytesOf(const char (&s)[N]) {
  return std::string(s, N - 1);
}

std::string modelFile() {
  return bytesOf(kModelHeader) + bytesOf(kPtx0) + bytesOf(kPtx1) +
         bytesOf(kBiasBytes);
}

BufferDesc buffer(BufferKind kind, int64_t index, DType dtype,
                  std::vector<int64_t> shape, std::string name,
                  int64_t offset = -1) {
  BufferDesc b;
  b.kind = kind;
  b.index = index;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.name = std::move(name);
  b.offset = offset;
  return b;
}

/// A temp at `offset` in the arena.
BufferDesc temp(DType dtype, std::vector<int64_t> shape, std::string name,
                int64_t offset) {
  return buffer(BufferKind::Temp, -1, dtype, std::move(shape), std::move(name),
                offset);
}

KernelDesc kernel(std::string name, FusionKind kind, int64_t numInputs,
                  std::vector<KernelParam> params, int64_t work,
                  int64_t rowLength, int64_t vectorWidth, int64_t ptxIndex,
                  std::vector<std::pair<int64_t, int64_t>> inPlace = {}) {
  KernelDesc k;
  k.name = std::move(name);
  k.kind = kind;
  k.numInputs = numInputs;
  k.numOutputs = int64_t(params.size()) - numInputs;
  k.params = std::move(params);
  k.work = work;
  k.rowLength = rowLength;
  k.vectorWidth = vectorWidth;
  k.ptxIndex = ptxIndex;
  k.inPlace = std::move(inPlace);
  return k;
}

Step launch(int64_t kernel, uint32_t grid, uint32_t block,
            std::vector<int64_t> args) {
  Step s;
  s.kind = Step::Kind::Launch;
  s.launch.kernel = kernel;
  s.launch.gridSize = grid;
  s.launch.blockSize = block;
  s.launch.args = std::move(args);
  return s;
}

Step matmul(int64_t a, int64_t b, int64_t c) {
  Step s;
  s.kind = Step::Kind::Matmul;
  s.matmul.a = a;
  s.matmul.b = b;
  s.matmul.c = c;
  return s;
}

/// y = rowmax(reshape(x @ w + bias)), total = sum(rowmax): two inputs, a
/// matmul with a broadcast batch dimension, a constant, an alias, two
/// outputs, and names with spaces, quotes, a newline and non-ASCII bytes.
Executable makeModel() {
  Executable exe;
  exe.entry = "forward";
  exe.arch = "sm_90";
  exe.memory.arenaBytes = 768;
  exe.memory.lowerBoundBytes = 768;
  exe.memory.peakStep = 3;
  exe.memory.workspaceBytes = 32 << 20;
  exe.buffers = {
      buffer(BufferKind::Input, 0, DType::F32, {2, 3, 4}, "x"),
      buffer(BufferKind::Input, 1, DType::F32, {4, 5}, "weight \"W\""),
      buffer(BufferKind::Constant, 0, DType::F32, {5}, "bias\nterm"),
      temp(DType::F32, {2, 3, 5}, "%mm", 0),
      temp(DType::F32, {2, 3, 5}, "sum \xc3\xa9", 0),
      buffer(BufferKind::Alias, 4, DType::F32, {6, 5}, "reshaped"),
      temp(DType::F32, {6}, "row max", 256),
      temp(DType::F32, {}, "total", 512),
  };
  exe.kernels = {
      kernel("fused_add", FusionKind::Loop, 2,
             {{DType::F32, 30}, {DType::F32, 5}, {DType::F32, 30}}, 30, 0, 2, 0,
             {{0, 0}}),
      kernel("fused_max", FusionKind::RowReduction, 1,
             {{DType::F32, 30}, {DType::F32, 6}}, 6, 5, 1, 0),
      kernel("fused_sum", FusionKind::Reduction, 1,
             {{DType::F32, 6}, {DType::F32, 1}}, 1, 0, 1, 1),
  };
  exe.ptx = {kPtx0, kPtx1};
  const float bias[] = {1.0f, -2.0f, 0.5f, 3.0f, 0.25f};
  std::string data(sizeof(bias), '\0');
  std::memcpy(data.data(), bias, sizeof(bias)); // The host is little-endian.
  exe.constants = {data};
  exe.steps = {
      matmul(0, 1, 3),
      launch(0, 1, 128, {3, 2, 4}),
      launch(1, 6, 32, {5, 6}),
      launch(2, 1, 1, {6, 7}),
  };
  exe.inputs = {0, 1};
  exe.outputs = {7, 5};
  return exe;
}

void expectSameExecutable(const Executable &a, const Executable &b) {
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.entry, b.entry);
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.memory.arenaBytes, b.memory.arenaBytes);
  EXPECT_EQ(a.memory.lowerBoundBytes, b.memory.lowerBoundBytes);
  EXPECT_EQ(a.memory.peakStep, b.memory.peakStep);
  EXPECT_EQ(a.memory.workspaceBytes, b.memory.workspaceBytes);
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    SCOPED_TRACE("buffer " + std::to_string(i));
    EXPECT_EQ(a.buffers[i].kind, b.buffers[i].kind);
    EXPECT_EQ(a.buffers[i].dtype, b.buffers[i].dtype);
    EXPECT_EQ(a.buffers[i].shape, b.buffers[i].shape);
    EXPECT_EQ(a.buffers[i].index, b.buffers[i].index);
    EXPECT_EQ(a.buffers[i].offset, b.buffers[i].offset);
    EXPECT_EQ(a.buffers[i].name, b.buffers[i].name);
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    SCOPED_TRACE("kernel " + std::to_string(i));
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].kind, b.kernels[i].kind);
    EXPECT_EQ(a.kernels[i].numInputs, b.kernels[i].numInputs);
    EXPECT_EQ(a.kernels[i].numOutputs, b.kernels[i].numOutputs);
    EXPECT_EQ(a.kernels[i].inPlace, b.kernels[i].inPlace);
    EXPECT_EQ(a.kernels[i].params, b.kernels[i].params);
    EXPECT_EQ(a.kernels[i].work, b.kernels[i].work);
    EXPECT_EQ(a.kernels[i].rowLength, b.kernels[i].rowLength);
    EXPECT_EQ(a.kernels[i].vectorWidth, b.kernels[i].vectorWidth);
    EXPECT_EQ(a.kernels[i].ptxIndex, b.kernels[i].ptxIndex);
  }
  EXPECT_EQ(a.ptx, b.ptx);
  EXPECT_EQ(a.cubin, b.cubin);
  EXPECT_EQ(a.constants, b.constants);
  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i));
    EXPECT_EQ(a.steps[i].kind, b.steps[i].kind);
    EXPECT_EQ(a.steps[i].launch.kernel, b.steps[i].launch.kernel);
    EXPECT_EQ(a.steps[i].launch.gridSize, b.steps[i].launch.gridSize);
    EXPECT_EQ(a.steps[i].launch.blockSize, b.steps[i].launch.blockSize);
    EXPECT_EQ(a.steps[i].launch.args, b.steps[i].launch.args);
    EXPECT_EQ(a.steps[i].matmul.a, b.steps[i].matmul.a);
    EXPECT_EQ(a.steps[i].matmul.b, b.steps[i].matmul.b);
    EXPECT_EQ(a.steps[i].matmul.c, b.steps[i].matmul.c);
    EXPECT_EQ(a.steps[i].matmul.transposeA, b.steps[i].matmul.transposeA);
    EXPECT_EQ(a.steps[i].matmul.transposeB, b.steps[i].matmul.transposeB);
    EXPECT_EQ(a.steps[i].matmul.epilogue, b.steps[i].matmul.epilogue);
    EXPECT_EQ(a.steps[i].matmul.bias, b.steps[i].matmul.bias);
  }
  EXPECT_EQ(a.inputs, b.inputs);
  EXPECT_EQ(a.outputs, b.outputs);
}

/// Serializes and parses `exe`: the error, or "" if it parsed.
std::string errorOf(const Executable &exe) {
  std::string error;
  std::optional<Executable> parsed =
      parseExecutable(serializeExecutable(exe), error);
  if (parsed)
    return "";
  EXPECT_FALSE(error.empty());
  return error;
}

std::string errorOfBytes(std::string_view bytes) {
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytes, error);
  if (parsed)
    return "";
  EXPECT_FALSE(error.empty());
  return error;
}

/// `s` with its only occurrence of `from` replaced by `to`.
std::string replaceOnce(std::string s, const std::string &from,
                        const std::string &to) {
  size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  EXPECT_EQ(s.find(from, at + 1), std::string::npos) << from;
  if (at != std::string::npos)
    s.replace(at, from.size(), to);
  return s;
}

/// The error of the model file with one edit.
std::string errorOfEdit(const std::string &from, const std::string &to) {
  return errorOfBytes(replaceOnce(modelFile(), from, to));
}

/// The error of the model with one change.
std::string errorOfChange(const std::function<void(Executable &)> &change) {
  Executable exe = makeModel();
  change(exe);
  return errorOf(exe);
}

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

TEST(Executable, WritesTheDocumentedBytes) {
  EXPECT_EQ(serializeExecutable(makeModel()), modelFile());
}

TEST(Executable, ReadsEveryField) {
  std::string error;
  std::optional<Executable> exe = parseExecutable(modelFile(), error);
  ASSERT_TRUE(exe) << error;
  expectSameExecutable(*exe, makeModel());
  // A few fields spelled out once more, independently of makeModel.
  EXPECT_EQ(exe->buffers[1].name, "weight \"W\"");
  EXPECT_EQ(exe->buffers[2].name, std::string("bias\nterm"));
  EXPECT_EQ(exe->buffers[4].name, "sum \xc3\xa9");
  EXPECT_EQ(exe->buffers[7].shape, std::vector<int64_t>{});
  EXPECT_EQ(exe->buffers[3].index, -1);
  EXPECT_EQ(exe->constants[0], bytesOf(kBiasBytes));
  EXPECT_EQ(exe->ptx[0].size(), 207u);
  EXPECT_EQ(exe->ptx[1].size(), 117u);
  EXPECT_EQ(exe->steps[2].launch.blockSize, 32u);
  EXPECT_EQ(serializeExecutable(*exe), modelFile());
}

/// The smallest thing the reader takes for a CUBIN: `size` bytes that
/// start with the identification of a 64-bit little-endian ELF file for
/// machine 190 (EM_CUDA).
std::string fakeCubin(size_t size, unsigned char machine = 190) {
  std::string c(size, '\0');
  c.replace(0, 4,
            "\x7f"
            "ELF");
  c[4] = 2; // ELFCLASS64
  c[5] = 1; // ELFDATA2LSB
  c[18] = char(machine);
  return c;
}

TEST(Executable, CubinsLieBetweenThePtxAndTheConstants) {
  Executable exe = makeModel();
  exe.cubin = {fakeCubin(64), fakeCubin(80)};
  std::string bytes = serializeExecutable(exe);
  // 207 + 117 bytes of PTX, then 64 + 80 of CUBIN, then 20 of constants.
  EXPECT_NE(bytes.find("ptx 1 offset 207 length 117\n"
                       "cubins 2\n"
                       "cubin 0 offset 324 length 64\n"
                       "cubin 1 offset 388 length 80\n"
                       "constants 1\n"
                       "constant 0 offset 468 length 20\n"
                       "cpu-sources 0\n"
                       "payload 488\n"),
            std::string::npos)
      << bytes.substr(0, 1200);
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytes, error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->cubin, exe.cubin);
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, RejectsCubinsThatAreNotOnePerPtxTextOrNotCudaElf) {
  Executable exe = makeModel();
  exe.cubin = {fakeCubin(64)};
  EXPECT_EQ(errorOf(exe), "invalid .fsx file: 1 CUBINs for 2 PTX texts "
                          "(expected none or one per PTX text)");
  exe.cubin = {fakeCubin(64), fakeCubin(63)};
  EXPECT_EQ(errorOf(exe), "invalid .fsx file: cubin 1 is not a 64-bit "
                          "little-endian ELF image for CUDA");
  exe.cubin = {fakeCubin(64, 62), fakeCubin(64)}; // EM_X86_64
  EXPECT_EQ(errorOf(exe), "invalid .fsx file: cubin 0 is not a 64-bit "
                          "little-endian ELF image for CUDA");
  exe.cubin = {fakeCubin(64), std::string(kPtx1)};
  EXPECT_EQ(errorOf(exe), "invalid .fsx file: cubin 1 is not a 64-bit "
                          "little-endian ELF image for CUDA");
}

TEST(Executable, MinimalExecutable) {
  const char kFile[] = "fusec-executable 5\n"
                       "entry \"f\"\n"
                       "arch \"sm_80\"\n"
                       "memory arena 0 lower-bound 0 peak-step 0 workspace 0\n"
                       "buffers 0\n"
                       "kernels 0\n"
                       "steps 0\n"
                       "inputs []\n"
                       "outputs []\n"
                       "ptx-texts 0\n"
                       "cubins 0\n"
                       "constants 0\n"
                       "cpu-sources 0\n"
                       "payload 0\n";
  Executable exe;
  exe.entry = "f";
  exe.arch = "sm_80";
  EXPECT_EQ(serializeExecutable(exe), kFile);
  std::string error;
  std::optional<Executable> parsed = parseExecutable(kFile, error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, ExtremeIntegersRoundTrip) {
  // An input of 2^63-1 bytes; an empty temp (0 bytes, placed anywhere);
  // a 4-byte temp, the only one that takes arena space (256 aligned bytes,
  // live at step 0 and, as an output, at step 1); an arena of 2^63-1 bytes
  // (larger than needed is allowed) and the largest workspace that is a
  // multiple of 256, 2^63-256.
  const char kFile[] =
      "fusec-executable 5\n"
      "entry \"e\"\n"
      "arch \"sm_100a\"\n"
      "memory arena 9223372036854775807 lower-bound 256 peak-step 0 "
      "workspace 9223372036854775552\n"
      "buffers 3\n"
      "buffer 0 input 0 i1 [9223372036854775807] \"max\"\n"
      "buffer 1 temp i64 [0,9223372036854775807,9223372036854775807] "
      "offset 9223372036854775552 \"empty\"\n"
      "buffer 2 temp f32 [] offset 9223372036854775552 \"\"\n"
      "kernels 1\n"
      "kernel 0 reduction inputs 2 outputs 2 param-dtypes [i1,i1,i64,f32] "
      "param-elements [9223372036854775807,9223372036854775807,0,1] "
      "work 9223372036854775807 "
      "row-length 9223372036854775807 vector-width 9223372036854775807 "
      "in-place [] ptx 0 \"k\"\n"
      "steps 1\n"
      "step 0 launch kernel 0 grid 1048576 block 1024 args [0,0,1,2]\n"
      "inputs [0]\n"
      "outputs [2,2]\n"
      "ptx-texts 1\n"
      "ptx 0 offset 0 length 0\n"
      "cubins 0\n"
      "constants 0\n"
      "cpu-sources 0\n"
      "payload 0\n";
  Executable exe;
  exe.entry = "e";
  exe.arch = "sm_100a";
  exe.memory.arenaBytes = INT64_MAX;
  exe.memory.lowerBoundBytes = 256;
  exe.memory.peakStep = 0;
  exe.memory.workspaceBytes = INT64_MAX - 255;
  exe.buffers = {
      buffer(BufferKind::Input, 0, DType::I1, {INT64_MAX}, "max"),
      temp(DType::I64, {0, INT64_MAX, INT64_MAX}, "empty", INT64_MAX - 255),
      temp(DType::F32, {}, "", INT64_MAX - 255),
  };
  exe.kernels = {kernel("k", FusionKind::Reduction, 2,
                        {{DType::I1, INT64_MAX},
                         {DType::I1, INT64_MAX},
                         {DType::I64, 0},
                         {DType::F32, 1}},
                        INT64_MAX, INT64_MAX, INT64_MAX, 0)};
  exe.ptx = {""};
  // 2^30 threads, the most a launch may have.
  exe.steps = {launch(0, 1u << 20, 1024, {0, 0, 1, 2})};
  exe.inputs = {0};
  exe.outputs = {2, 2};
  EXPECT_EQ(serializeExecutable(exe), kFile);
  std::string error;
  std::optional<Executable> parsed = parseExecutable(kFile, error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, EveryDTypeRoundTrips) {
  const char kFile[] = "fusec-executable 5\n"
                       "entry \"f\"\n"
                       "arch \"sm_90\"\n"
                       "memory arena 0 lower-bound 0 peak-step 0 workspace 0\n"
                       "buffers 6\n"
                       "buffer 0 constant 0 f32 [2] \"a\"\n"
                       "buffer 1 constant 1 f16 [3] \"b\"\n"
                       "buffer 2 constant 2 bf16 [1,2] \"c\"\n"
                       "buffer 3 constant 3 i1 [3] \"d\"\n"
                       "buffer 4 constant 4 i32 [] \"e\"\n"
                       "buffer 5 constant 5 i64 [1] \"f\"\n"
                       "kernels 0\n"
                       "steps 0\n"
                       "inputs []\n"
                       "outputs [0,1,2,3,4,5]\n"
                       "ptx-texts 0\n"
                       "cubins 0\n"
                       "constants 6\n"
                       "constant 0 offset 0 length 8\n"
                       "constant 1 offset 8 length 6\n"
                       "constant 2 offset 14 length 4\n"
                       "constant 3 offset 18 length 3\n"
                       "constant 4 offset 21 length 4\n"
                       "constant 5 offset 25 length 8\n"
                       "cpu-sources 0\n"
                       "payload 33\n"
                       "AAAAAAAABBBBBBCCCC\x01\x00\x01"
                       "EEEEFFFFFFFF";
  Executable exe;
  exe.entry = "f";
  exe.arch = "sm_90";
  exe.buffers = {
      buffer(BufferKind::Constant, 0, DType::F32, {2}, "a"),
      buffer(BufferKind::Constant, 1, DType::F16, {3}, "b"),
      buffer(BufferKind::Constant, 2, DType::BF16, {1, 2}, "c"),
      buffer(BufferKind::Constant, 3, DType::I1, {3}, "d"),
      buffer(BufferKind::Constant, 4, DType::I32, {}, "e"),
      buffer(BufferKind::Constant, 5, DType::I64, {1}, "f"),
  };
  exe.constants = {"AAAAAAAA", "BBBBBB",
                   "CCCC",     std::string("\x01\x00\x01", 3),
                   "EEEE",     "FFFFFFFF"};
  exe.outputs = {0, 1, 2, 3, 4, 5};
  EXPECT_EQ(serializeExecutable(exe), bytesOf(kFile));
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytesOf(kFile), error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, QuotesNames) {
  Executable exe = makeModel();
  exe.buffers[7].name =
      std::string("a \"q\" \\ \n\t\x7f\x00\xff \xc3\xa9~", 17);
  exe.entry = "main \"fn\"";
  std::string bytes = serializeExecutable(exe);
  EXPECT_NE(bytes.find("buffer 7 temp f32 [] offset 512 "
                       "\"a \\\"q\\\" \\\\ \\x0a\\x09\\x7f\\x00\\xff "
                       "\\xc3\\xa9~\"\n"),
            std::string::npos)
      << bytes;
  EXPECT_NE(bytes.find("\nentry \"main \\\"fn\\\"\"\n"), std::string::npos);
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytes, error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, EveryByteInANameRoundTrips) {
  Executable exe = makeModel();
  std::string all;
  for (int c = 0; c < 256; ++c)
    all += char(c);
  exe.buffers[3].name = all;
  exe.entry = all;
  exe.arch = all;
  std::string bytes = serializeExecutable(exe);
  // The header is printable ASCII and newlines.
  size_t payload = bytes.size() - 344;
  for (size_t i = 0; i < payload; ++i)
    ASSERT_TRUE(bytes[i] == '\n' || (bytes[i] >= 0x20 && bytes[i] < 0x7f))
        << "byte " << i;
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytes, error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
  EXPECT_EQ(serializeExecutable(*parsed), bytes);
}

/// `exe` with its temps one after another in the arena (no in-place
/// sharing), and the figures that plan has, so that a test can change
/// shapes without planning by hand. The reader checks the figures.
Executable laidOutSeparately(Executable exe) {
  int64_t offset = 0;
  for (BufferDesc &b : exe.buffers)
    if (b.kind == BufferKind::Temp) {
      b.offset = offset;
      offset += (bufferBytes(b) + kArenaAlignment - 1) / kArenaAlignment *
                kArenaAlignment;
    }
  exe.memory.arenaBytes = offset;
  MemoryAnalysis analysis = analyzeMemory(exe);
  exe.memory.lowerBoundBytes = analysis.lowerBoundBytes;
  exe.memory.peakStep = analysis.peakStep;
  return exe;
}

TEST(Executable, BroadcastBatchedMatmulIsValid) {
  Executable exe = makeModel();
  // a [2,1,3,4] x b [5,4,6] -> c [2,5,3,6].
  exe.buffers[0].shape = {2, 1, 3, 4};
  exe.buffers[1].shape = {5, 4, 6};
  exe.buffers[3].shape = {2, 5, 3, 6};
  exe.kernels[0].params[0].elements = 180; // Kernel 0 reads all of c.
  EXPECT_EQ(errorOf(laidOutSeparately(exe)), "");
  // b [1,4,5] broadcasts against a's batch [2].
  exe = makeModel();
  exe.buffers[1].shape = {1, 4, 5};
  EXPECT_EQ(errorOf(exe), "");
  // Plain 2-D.
  exe = makeModel();
  exe.buffers[0].shape = {3, 4};
  exe.buffers[3].shape = {3, 5};
  exe.kernels[0].params[0].elements = 15;
  EXPECT_EQ(errorOf(laidOutSeparately(exe)), "");
}

//===----------------------------------------------------------------------===//
// Magic and version
//===----------------------------------------------------------------------===//

TEST(Executable, RejectsOtherVersions) {
  Executable exe = makeModel();
  exe.version = 6;
  EXPECT_EQ(errorOf(exe),
            "unsupported .fsx version 6; this fusec reads version 5");
  // Older versions are rebuilt from the model (version 1 has no memory
  // plan, version 2 no CUBINs, version 3 no CPU source,
  // version 4 no convolution steps).
  for (uint32_t older : {4u, 3u, 2u, 1u, 0u}) {
    exe.version = older;
    EXPECT_EQ(errorOf(exe), "unsupported .fsx version " +
                                std::to_string(older) +
                                "; this fusec reads version 5 (recompile the "
                                "model with this fusec's --emit=exec)");
  }
  // A later version may change everything after the first line.
  EXPECT_EQ(errorOfBytes("fusec-executable 10\n\x01\x02"),
            "unsupported .fsx version 10; this fusec reads version 5");
  EXPECT_EQ(errorOfBytes("fusec-executable 4294967295\n\x01\x02"),
            "unsupported .fsx version 4294967295; this fusec reads version 5");
  EXPECT_EQ(errorOfBytes("fusec-executable 12345678901234567890\nx"),
            "unsupported .fsx version 12345678901234567890; this fusec reads "
            "version 5");
}

TEST(Executable, CpuSourceRoundTripsAfterTheConstants) {
  Executable exe = makeModel();
  exe.cpuSource = "extern \"C\" void k_cpu() {}\n";
  std::string bytes = serializeExecutable(exe);
  EXPECT_NE(bytes.find("constant 0 offset 324 length 20\n"
                       "cpu-sources 1\n"
                       "cpu-source 0 offset 344 length 27\n"
                       "payload 371\n"),
            std::string::npos)
      << bytes.substr(0, 1200);
  std::string error;
  std::optional<Executable> back = parseExecutable(bytes, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->cpuSource, exe.cpuSource);
  // At most one.
  std::string two = bytes;
  two.replace(two.find("cpu-sources 1"), 13, "cpu-sources 2");
  EXPECT_EQ(errorOfBytes(two), "invalid .fsx file: 2 CPU sources (an "
                               "executable has at most one)");
}

TEST(Executable, RejectsBadMagicAndVersionLines) {
  EXPECT_EQ(errorOfBytes(""), "not an .fsx file: the file is empty");
  EXPECT_EQ(errorOfBytes("\x93NUMPY\x01\x00v\x00{'descr': '<f4', "),
            "not an .fsx file: it does not start with \"fusec-executable\"");
  EXPECT_EQ(errorOfBytes("fusec-executablE 1\n"),
            "not an .fsx file: it does not start with \"fusec-executable\"");
  const char kBadLine[] = "invalid .fsx file: line 1: expected "
                          "\"fusec-executable\", a space, the version number "
                          "and a newline";
  EXPECT_EQ(errorOfBytes("fusec-executable 01\nentry"), kBadLine);
  EXPECT_EQ(errorOfBytes("fusec-executable  1\nentry"), kBadLine);
  EXPECT_EQ(errorOfBytes("fusec-executable 1 \nentry"), kBadLine);
  EXPECT_EQ(errorOfBytes("fusec-executable 1\r\nentry"), kBadLine);
  EXPECT_EQ(errorOfBytes("fusec-executable v1\nentry"), kBadLine);
  EXPECT_EQ(errorOfBytes("fusec-executable 123456789012345678901\nx"),
            kBadLine);
}

//===----------------------------------------------------------------------===//
// Syntax of the header
//===----------------------------------------------------------------------===//

TEST(Executable, RejectsNonCanonicalIntegers) {
  EXPECT_EQ(errorOfEdit("buffers 8\n", "buffers 08\n"),
            "invalid .fsx file: line 5: number of buffers 08 is not in "
            "canonical form (no leading zeros, no -0)");
  EXPECT_EQ(errorOfEdit("grid 1 block 128", "grid -0 block 128"),
            "invalid .fsx file: line 20: grid size -0 is not in canonical "
            "form (no leading zeros, no -0)");
  EXPECT_EQ(errorOfEdit("buffers 8\n", "buffers +8\n"),
            "invalid .fsx file: line 5: expected number of buffers, found "
            "\"+8\"");
  EXPECT_EQ(errorOfEdit("[2,3,4]", "[2,3, 4]"),
            "invalid .fsx file: line 6: expected dimension, found \" 4] "
            "\\\"x\\\"\"");
  EXPECT_EQ(errorOfEdit("work 30 ", "work 9223372036854775808 "),
            "invalid .fsx file: line 15: work 9223372036854775808 is out of "
            "the range of int64");
  EXPECT_EQ(errorOfEdit("work 30 ", "work -9223372036854775809 "),
            "invalid .fsx file: line 15: work -9223372036854775809 is out of "
            "the range of int64");
  EXPECT_EQ(errorOfEdit("grid 1 block 128", "grid 4294967296 block 128"),
            "invalid .fsx file: line 20: grid size 4294967296 is out of the "
            "range of uint32");
  EXPECT_EQ(errorOfEdit("grid 1 block 128", "grid 1 block -1"),
            "invalid .fsx file: line 20: block size -1 is out of the range of "
            "uint32");
}

TEST(Executable, RejectsMalformedLines) {
  EXPECT_EQ(errorOfEdit("buffer 0 input", "buffer 0  input"),
            "invalid .fsx file: line 6: expected a buffer kind, found \" "
            "input 0 f32 [2,3,4] \\\"x\\\"\"");
  EXPECT_EQ(errorOfEdit("entry \"forward\"\n", "entry \"forward\"\r\n"),
            "invalid .fsx file: line 2: expected \"\\x0a\", found \"\\x0d\"");
  EXPECT_EQ(errorOfEdit("buffer 1 input", "buffer 2 input"),
            "invalid .fsx file: line 7: expected buffer 1, found buffer 2");
  EXPECT_EQ(errorOfEdit("buffer 3 temp", "buffer 3 tmp"),
            "invalid .fsx file: line 9: unknown buffer kind \"tmp\" (expected "
            "input, constant, temp or alias)");
  EXPECT_EQ(errorOfEdit("f32 [5]", "f128 [5]"),
            "invalid .fsx file: line 8: unknown dtype \"f128\" (expected f32, "
            "f16, bf16, i1, i32, i64 or f64)");
  EXPECT_EQ(errorOfEdit("f32 [5]", "f64 [5]"),
            "invalid .fsx file: buffer 2 (\"bias\\x0aterm\"): constant 0 has "
            "20 bytes, expected 40 for [5] f64");
  EXPECT_EQ(errorOfEdit("f32 [5]", "F32 [5]"),
            "invalid .fsx file: line 8: expected a dtype, found \"F32 [5] "
            "\\\"bias\\\\x0aterm\\\"\"");
  EXPECT_EQ(errorOfEdit("kernel 2 reduction", "kernel 2 scan"),
            "invalid .fsx file: line 17: unknown kernel kind \"scan\" "
            "(expected loop, row_reduction or reduction)");
  EXPECT_EQ(errorOfEdit("step 0 matmul", "step 0 gemm"),
            "invalid .fsx file: line 19: unknown step kind \"gemm\" (expected "
            "launch, matmul or conv)");
  EXPECT_EQ(errorOfEdit("steps 4\n", "steps 4\n\n"),
            "invalid .fsx file: line 19: expected \"step \", found \"\\x0a\"");
  EXPECT_EQ(errorOfEdit("inputs [0,1]", "inputs [0,1,]"),
            "invalid .fsx file: line 23: expected buffer index, found \"]\"");
  EXPECT_EQ(errorOfEdit("kernels 3\n", "kernels 3 \n"),
            "invalid .fsx file: line 14: expected \"\\x0a\", found \" \"");
}

TEST(Executable, RejectsNonCanonicalStrings) {
  EXPECT_EQ(errorOfEdit("\"sum \\xc3\\xa9\"", "\"sum \\xC3\\xa9\""),
            "invalid .fsx file: line 10: escape \"\\\\xC3\" needs two "
            "lowercase hex digits");
  EXPECT_EQ(errorOfEdit("[2,3,4] \"x\"", "[2,3,4] \"\\x78\""),
            "invalid .fsx file: line 6: escape \"\\\\x78\" of a printable "
            "character (write it as itself, or \\\" and \\\\)");
  EXPECT_EQ(errorOfEdit("\"weight \\\"W\\\"\"", "\"weight \\x22W\\x22\""),
            "invalid .fsx file: line 7: escape \"\\\\x22\" of a printable "
            "character (write it as itself, or \\\" and \\\\)");
  EXPECT_EQ(errorOfEdit("\"sum \\xc3\\xa9\"", "\"sum \xc3\xa9\""),
            "invalid .fsx file: line 10: byte 0xc3 in a string must be written "
            "as \\xc3");
  EXPECT_EQ(errorOfEdit("\"bias\\x0aterm\"", "\"bias\\nterm\""),
            "invalid .fsx file: line 8: unknown escape \"\\\\n\" in a string "
            "(only \\\" \\\\ and \\xHH)");
  EXPECT_EQ(errorOfEdit("\"bias\\x0aterm\"", "\"bias\nterm\""),
            "invalid .fsx file: line 8: byte 0x0a in a string must be written "
            "as \\x0a");
  EXPECT_EQ(errorOfEdit("\"row max\"", "\"row\tmax\""),
            "invalid .fsx file: line 12: byte 0x09 in a string must be written "
            "as \\x09");
}

TEST(Executable, RejectsBadPayloadLayout) {
  std::string file = modelFile();
  EXPECT_EQ(errorOfBytes(file.substr(0, file.size() - 1)),
            "truncated .fsx file: the header declares 344 bytes of payload, "
            "found 343");
  EXPECT_EQ(errorOfBytes(file + "x"),
            "invalid .fsx file: trailing data: the header declares 344 bytes "
            "of payload, found 345");
  EXPECT_EQ(errorOfEdit("ptx 1 offset 207 ", "ptx 1 offset 206 "),
            "invalid .fsx file: ptx 1: offset 206, expected 207 (payloads are "
            "stored back to back, in order)");
  EXPECT_EQ(errorOfEdit("ptx 0 offset 0 ", "ptx 0 offset -1 "),
            "invalid .fsx file: ptx 0: offset -1 and length 207 lie outside "
            "the 344-byte payload");
  EXPECT_EQ(errorOfEdit("length 20\n", "length 21\n"),
            "invalid .fsx file: constant 0: offset 324 and length 21 lie "
            "outside the 344-byte payload");
  EXPECT_EQ(errorOfEdit("length 20\n", "length -20\n"),
            "invalid .fsx file: constant 0: offset 324 and length -20 lie "
            "outside the 344-byte payload");
  EXPECT_EQ(errorOfEdit("length 20\n", "length 19\n"),
            "invalid .fsx file: the payload has 344 bytes but its PTX texts, "
            "CUBINs, constants and CPU source take 343");
  // Same sizes, other order: the constant first.
  EXPECT_EQ(errorOfEdit("constant 0 offset 324", "constant 0 offset 0"),
            "invalid .fsx file: constant 0: offset 0, expected 324 (payloads "
            "are stored back to back, in order)");
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

TEST(Executable, ValidatesEntryAndArch) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.entry.clear(); }),
            "invalid .fsx file: the entry function name is empty");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.arch.clear(); }),
            "invalid .fsx file: the target architecture is empty");
  EXPECT_EQ(errorOfEdit("arch \"sm_90\"\n", ""),
            "invalid .fsx file: line 3: expected \"arch \", found \"memory "
            "arena 768 lower-b\"");
}

TEST(Executable, ValidatesShapes) {
  EXPECT_EQ(
      errorOfChange([](Executable &e) {
        e.buffers[3].shape = {2, -3, 5};
      }),
      "invalid .fsx file: buffer 3 (\"%mm\"): negative dimension -3 in shape "
      "[2,-3,5]");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[3].shape = {4294967296, 4294967296};
            }),
            "invalid .fsx file: buffer 3 (\"%mm\"): the number of elements of "
            "shape [4294967296,4294967296] overflows int64");
  // 2^62 elements of 4 bytes.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[3].shape = {4611686018427387904};
            }),
            "invalid .fsx file: buffer 3 (\"%mm\"): the size in bytes of "
            "[4611686018427387904] f32 overflows int64");
  // An empty shape has no bytes, but its other dimensions must not make
  // the size arithmetic overflow either.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers.push_back(buffer(BufferKind::Constant, 0, DType::F32,
                                         {4611686018427387904, 4, 0}, "e"));
            }),
            "invalid .fsx file: buffer 8 (\"e\"): constant 0 has 20 bytes, "
            "expected 0 for [4611686018427387904,4,0] f32");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[6].shape = {2305843009213693952, 2};
            }),
            "invalid .fsx file: buffer 6 (\"row max\"): the size in bytes of "
            "[2305843009213693952,2] f32 overflows int64");
}

TEST(Executable, ValidatesInputs) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[1].index = 2; }),
            "invalid .fsx file: buffer 1 (\"weight \\\"W\\\"\"): input "
            "position 2 is out of range (the entry has 2 inputs)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[0].index = -1; }),
            "invalid .fsx file: buffer 0 (\"x\"): input position -1 is out of "
            "range (the entry has 2 inputs)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[1].index = 0; }),
            "invalid .fsx file: buffer 1 (\"weight \\\"W\\\"\"): input "
            "position 0 is also that of buffer 0");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.inputs = {0, 1, 3};
            }),
            "invalid .fsx file: input position 2 is not that of any input "
            "buffer");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.inputs = {0, 8};
            }),
            "invalid .fsx file: inputs[1] is buffer 8, which does not exist "
            "(there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.inputs = {-1, 1};
            }),
            "invalid .fsx file: inputs[0] is buffer -1, which does not exist "
            "(there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.inputs = {1, 0};
            }),
            "invalid .fsx file: inputs[0] is buffer 1, but buffer 1 (\"weight "
            "\\\"W\\\"\") is input 1, not input 0");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.inputs = {0, 3};
            }),
            "invalid .fsx file: inputs[1] is buffer 3, but buffer 3 (\"%mm\") "
            "is a temp buffer, not input 1");
}

TEST(Executable, ValidatesConstants) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[2].index = 1; }),
            "invalid .fsx file: buffer 2 (\"bias\\x0aterm\"): constant 1 is "
            "out of range (there are 1 constants)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[2].index = -1; }),
            "invalid .fsx file: buffer 2 (\"bias\\x0aterm\"): constant -1 is "
            "out of range (there are 1 constants)");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.constants[0].resize(16); }),
      "invalid .fsx file: buffer 2 (\"bias\\x0aterm\"): constant 0 has 16 "
      "bytes, expected 20 for [5] f32");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.buffers[2].dtype = DType::F16; }),
      "invalid .fsx file: buffer 2 (\"bias\\x0aterm\"): constant 0 has 20 "
      "bytes, expected 10 for [5] f16");
}

TEST(Executable, ValidatesAliases) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[5].index = 8; }),
            "invalid .fsx file: buffer 5 (\"reshaped\"): aliases buffer 8, "
            "which does not exist (there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[5].index = -1; }),
            "invalid .fsx file: buffer 5 (\"reshaped\"): aliases buffer -1, "
            "which does not exist (there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.buffers[5].index = 5; }),
            "invalid .fsx file: buffer 5 (\"reshaped\"): aliases itself");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers.push_back(
                  buffer(BufferKind::Alias, 5, DType::F32, {30}, "again"));
            }),
            "invalid .fsx file: buffer 8 (\"again\"): aliases buffer 5 "
            "(\"reshaped\"), which is an alias itself");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.buffers[5].dtype = DType::I32; }),
      "invalid .fsx file: buffer 5 (\"reshaped\"): [6,5] i32 cannot alias "
      "buffer 4 (\"sum \\xc3\\xa9\") of [2,3,5] f32 (an alias keeps the dtype "
      "and the number of elements)");
  EXPECT_EQ(
      errorOfChange([](Executable &e) {
        e.buffers[5].shape = {6, 4};
      }),
      "invalid .fsx file: buffer 5 (\"reshaped\"): [6,4] f32 cannot alias "
      "buffer 4 (\"sum \\xc3\\xa9\") of [2,3,5] f32 (an alias keeps the dtype "
      "and the number of elements)");
  // An alias of an input, a constant, and a scalar view of a 1-element
  // buffer are fine.
  Executable exe = makeModel();
  exe.buffers.push_back(
      buffer(BufferKind::Alias, 0, DType::F32, {24}, "x flat"));
  exe.buffers.push_back(
      buffer(BufferKind::Alias, 2, DType::F32, {1, 5}, "bias row"));
  exe.buffers.push_back(temp(DType::F32, {1, 1}, "one", 0));
  exe.buffers.push_back(buffer(BufferKind::Alias, 10, DType::F32, {}, "s"));
  EXPECT_EQ(errorOf(exe), "");
}

TEST(Executable, ValidatesKernels) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[2].ptxIndex = 2; }),
            "invalid .fsx file: kernel 2 (\"fused_sum\"): PTX text 2 is out "
            "of range (there are 2 PTX texts)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[0].ptxIndex = -1; }),
            "invalid .fsx file: kernel 0 (\"fused_add\"): PTX text -1 is out "
            "of range (there are 2 PTX texts)");
  // A kernel's name is a symbol and a file name: a C identifier, unique.
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[1].name.clear(); }),
            "invalid .fsx file: kernel 1 (\"\"): the symbol name is not a C "
            "identifier");
  EXPECT_EQ(errorOfChange(
                [](Executable &e) { e.kernels[1].name = "../victim/plain"; }),
            "invalid .fsx file: kernel 1 (\"../victim/plain\"): the symbol "
            "name is not a C identifier");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.kernels[1].name = std::string("exit\0", 5);
            }),
            "invalid .fsx file: kernel 1 (\"exit\\x00\"): the symbol name is "
            "not a C identifier");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[1].name = "1k"; }),
            "invalid .fsx file: kernel 1 (\"1k\"): the symbol name is not a C "
            "identifier");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.kernels[1].name = "_Fused_2"; }), "");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.kernels[2].name = "fused_add"; }),
      "invalid .fsx file: kernel 2 (\"fused_add\"): another kernel has "
      "the same symbol name");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[0].work = -1; }),
            "invalid .fsx file: kernel 0 (\"fused_add\"): negative work -1");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[1].rowLength = -5; }),
            "invalid .fsx file: kernel 1 (\"fused_max\"): negative row "
            "length -5");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[0].vectorWidth = 0; }),
            "invalid .fsx file: kernel 0 (\"fused_add\"): vector width 0 is "
            "not at least 1");
}

TEST(Executable, ValidatesLaunches) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[1].launch.kernel = 3; }),
            "invalid .fsx file: step 1: kernel 3 is out of range (there are 3 "
            "kernels)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[1].launch.kernel = -1; }),
            "invalid .fsx file: step 1: kernel -1 is out of range (there are "
            "3 kernels)");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.steps[1].launch.gridSize = 0; }),
      "invalid .fsx file: step 1: grid size 0 is not at least 1");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.steps[3].launch.blockSize = 0; }),
      "invalid .fsx file: step 3: block size 0 is not between 1 and 1024");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.steps[3].launch.blockSize = 1025; }),
      "invalid .fsx file: step 3: block size 1025 is not between 1 and 1024");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.steps[3].launch.blockSize = 1024; }),
      "");
  // A row reduction combines whole warps (kernel 1 at step 2).
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.steps[2].launch.blockSize = 48; }),
      "invalid .fsx file: step 2: block size 48 of a row reduction is not a "
      "multiple of 32");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.steps[2].launch.blockSize = 96; }),
      "");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[2].launch.args = {5, 8};
            }),
            "invalid .fsx file: step 2: argument 1 is buffer 8, which does not "
            "exist (there are 8 buffers)");
  EXPECT_EQ(
      errorOfChange([](Executable &e) {
        e.steps[2].launch.args = {-1, 6};
      }),
      "invalid .fsx file: step 2: argument 0 is buffer -1, which does not "
      "exist (there are 8 buffers)");
}

TEST(Executable, ValidatesMatmuls) {
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[0].matmul.a = 8; }),
            "invalid .fsx file: step 0: matmul operand a is buffer 8, which "
            "does not exist (there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[0].matmul.c = -1; }),
            "invalid .fsx file: step 0: matmul operand c is buffer -1, which "
            "does not exist (there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[0].matmul.b = 2; }),
            "invalid .fsx file: step 0: matmul operand b (buffer 2, [5] f32) "
            "has rank 1; matmul needs rank 2 or more");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[0].matmul.c = 7; }),
            "invalid .fsx file: step 0: matmul operand c (buffer 7, [] f32) "
            "has rank 0; matmul needs rank 2 or more");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.buffers[1].dtype = DType::F16; }),
      "invalid .fsx file: step 0: matmul operands of different dtypes: a "
      "[2,3,4] f32, b [4,5] f16, c [2,3,5] f32");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.buffers[3].dtype = DType::BF16; }),
      "invalid .fsx file: step 0: matmul result dtype bf16 is not f32 (the "
      "operands' type): a [2,3,4] f32, b [4,5] f32, c [2,3,5] bf16");
  // f16/bf16 operands may give an f32 result (f32 accumulation), nothing
  // else mixes.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[0].dtype = e.buffers[1].dtype = DType::BF16;
            }),
            "");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[0].dtype = e.buffers[1].dtype = DType::F16;
              e.buffers[3].dtype = DType::BF16;
            }),
            "invalid .fsx file: step 0: matmul result dtype bf16 is neither "
            "the operands' (f16) nor f32: a [2,3,4] f16, b [4,5] f16, c "
            "[2,3,5] bf16");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[0].dtype = e.buffers[1].dtype = DType::I32;
              e.buffers[3].dtype = DType::I64;
            }),
            "invalid .fsx file: step 0: matmul operands must be f32, f16 or "
            "bf16, not i32: a [2,3,4] i32, b [4,5] i32, c [2,3,5] i64");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[1].shape = {3, 5};
            }),
            "invalid .fsx file: step 0: matmul inner dimensions disagree (4 "
            "and 3): a [2,3,4] f32, b [3,5] f32, c [2,3,5] f32");
  EXPECT_EQ(
      errorOfChange([](Executable &e) {
        e.buffers[1].shape = {3, 4, 5};
      }),
      "invalid .fsx file: step 0: matmul batch dimensions do not broadcast (2 "
      "and 3): a [2,3,4] f32, b [3,4,5] f32, c [2,3,5] f32");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[1].shape = {7, 1, 4, 5};
            }),
            "invalid .fsx file: step 0: matmul result c should have shape "
            "[7,2,3,5]: a [2,3,4] f32, b [7,1,4,5] f32, c [2,3,5] f32");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[3].shape = {2, 3, 6};
            }),
            "invalid .fsx file: step 0: matmul result c should have shape "
            "[2,3,5]: a [2,3,4] f32, b [4,5] f32, c [2,3,6] f32");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[3].shape = {6, 5};
            }),
            "invalid .fsx file: step 0: matmul result c should have shape "
            "[2,3,5]: a [2,3,4] f32, b [4,5] f32, c [6,5] f32");
}

TEST(Executable, Version2Fields) {
  // Kernel signatures, in-place permissions, matmul flags and epilogues.
  EXPECT_EQ(errorOfEdit("in-place [0,0]", "in-place [0]"),
            "invalid .fsx file: line 15: the in-place list has an odd number "
            "of entries (it holds input, output pairs)");
  EXPECT_EQ(errorOfEdit("in-place [0,0]", "in-place [0,1]"),
            "invalid .fsx file: kernel 0 (\"fused_add\"): in-place pair (0, "
            "1) names no input and output");
  EXPECT_EQ(errorOfEdit("transpose-b 0", "transpose-b 2"),
            "invalid .fsx file: line 19: transpose-b 2 is not 0 or 1");
  EXPECT_EQ(errorOfEdit("epilogue none", "epilogue silu"),
            "invalid .fsx file: line 19: unknown epilogue \"silu\" (expected "
            "none, bias, relu, relu_bias, gelu or gelu_bias)");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[2].launch.args = {5, 6, 7};
            }),
            "invalid .fsx file: step 2: 3 arguments, but the kernel takes 1 "
            "inputs and 1 outputs");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers.push_back(
                  buffer(BufferKind::Alias, 7, DType::F32, {1}, "total[1]"));
              e.steps[3].launch.args = {6, 8};
            }),
            "invalid .fsx file: step 3: output argument 1 is buffer 8 "
            "(\"total[1]\"), not a temp buffer");
  // A matmul with a bias epilogue round-trips; the bias is the constant.
  Executable exe = makeModel();
  exe.steps[0].matmul.epilogue = MatmulEpilogue::ReluBias;
  exe.steps[0].matmul.bias = 2;
  exe.steps[0].matmul.transposeB = true;
  exe.buffers[1].shape = {5, 4};
  std::string bytes = serializeExecutable(exe);
  EXPECT_NE(bytes.find("step 0 matmul a 0 b 1 c 3 transpose-a 0 transpose-b "
                       "1 epilogue relu_bias bias 2\n"),
            std::string::npos);
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytes, error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, LaunchesStayInsideTheirBuffers) {
  // Every argument has the dtype of the kernel's parameter and at least as
  // many elements as the kernel accesses: it never reads or writes past a
  // buffer.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[2].launch.args = {6, 5};
            }),
            "invalid .fsx file: step 2: argument 0 is buffer 6 (\"row max\") "
            "of [6] f32, but kernel 1 (\"fused_max\") accesses 30 f32 "
            "elements there");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.kernels[2].params[1].elements = 2; // "total" has 1 element.
            }),
            "invalid .fsx file: step 3: argument 1 is buffer 7 (\"total\") of "
            "[] f32, but kernel 2 (\"fused_sum\") accesses 2 f32 elements "
            "there");
  // A larger buffer is fine: the kernel accesses a prefix of it.
  EXPECT_EQ(errorOfChange(
                [](Executable &e) { e.kernels[1].params[0].elements = 29; }),
            "");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.kernels[1].params[1].dtype = DType::I32;
            }),
            "invalid .fsx file: step 2: argument 1 is buffer 6 (\"row max\") "
            "of [6] f32, but kernel 1 (\"fused_max\") accesses 6 i32 "
            "elements there");
  EXPECT_EQ(errorOfEdit("param-elements [30,6]", "param-elements [30]"),
            "invalid .fsx file: line 16: the kernel has 2 parameter dtypes "
            "but 1 element counts");
  EXPECT_EQ(errorOfEdit("outputs 1 param-dtypes [f32,f32] param-elements "
                        "[6,1]",
                        "outputs 1 param-dtypes [f32] param-elements [6]"),
            "invalid .fsx file: kernel 2 (\"fused_sum\"): 1 parameters, but 1 "
            "inputs and 1 outputs");
  EXPECT_EQ(errorOfChange(
                [](Executable &e) { e.kernels[0].params[1].elements = -5; }),
            "invalid .fsx file: kernel 0 (\"fused_add\"): parameter 1 has a "
            "negative element count -5");
  EXPECT_EQ(
      errorOfEdit("param-dtypes [f32,f32,f32]", "param-dtypes [f32,f64,f32]"),
      "invalid .fsx file: step 1: argument 1 is buffer 2 "
      "(\"bias\\x0aterm\") of [5] f32, but kernel 0 (\"fused_add\") "
      "accesses 5 f64 elements there");
  EXPECT_EQ(
      errorOfEdit("param-dtypes [f32,f32,f32]", "param-dtypes [f32,f128,f32]"),
      "invalid .fsx file: line 15: unknown dtype \"f128\" (expected "
      "f32, f16, bf16, i1, i32, i64 or f64)");
  // At most 2^30 threads: 2^20 blocks of 1024 is exactly that.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[1].launch.gridSize = 1048576;
              e.steps[1].launch.blockSize = 1024;
            }),
            "");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[1].launch.gridSize = 1048577;
              e.steps[1].launch.blockSize = 1024;
            }),
            "invalid .fsx file: step 1: grid 1048577 x block 1024 is more than "
            "2^30 threads, which a generated kernel's 32-bit index does not "
            "support");
  EXPECT_NE(errorOfChange(
                [](Executable &e) { e.steps[1].launch.gridSize = UINT32_MAX; }),
            "");
}

TEST(Executable, RejectsAHandEditedPlan) {
  // "row max" moved onto "sum", which is live from step 1 to the end.
  EXPECT_EQ(errorOfEdit("offset 256 \"row max\"", "offset 0 \"row max\""),
            "invalid .fsx file: buffer 4 (\"sum \\xc3\\xa9\") and buffer 6 "
            "(\"row max\") are live together at step 2 but share bytes [0, "
            "24) of the arena");
  // A figure that does not match the plan.
  EXPECT_NE(errorOfEdit("lower-bound 768", "lower-bound 512"), "");
  EXPECT_NE(errorOfEdit("peak-step 3", "peak-step 2"), "");
  // An arena too small for "total" at 512 (4 bytes).
  EXPECT_NE(errorOfEdit("arena 768", "arena 515"), "");
  EXPECT_EQ(errorOfEdit("arena 768", "arena 516"), "");
  // Offsets off the 256-byte grid, and a workspace likewise.
  EXPECT_NE(errorOfEdit("offset 512 \"total\"", "offset 528 \"total\""), "");
  EXPECT_NE(errorOfEdit("workspace 33554432", "workspace 33554433"), "");
}

TEST(Executable, ValidatesOutputs) {
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.outputs = {7, 8};
            }),
            "invalid .fsx file: outputs[1] is buffer 8, which does not exist "
            "(there are 8 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.outputs = {-1}; }),
            "invalid .fsx file: outputs[0] is buffer -1, which does not exist "
            "(there are 8 buffers)");
}

TEST(PlanPrinter, ShowsThePlanOneLinePerEntry) {
  // By hand from the model: four temps of 256 aligned bytes each (1024 for
  // one buffer per temporary), and names that are not plain printable
  // ASCII quoted with the format's escapes.
  std::string plan = formatPlan(makeModel());
  const char kHead[] =
      "executable 'forward' for sm_90, format v5\n"
      "memory: arena 768 bytes, 1.000x the lower bound 768 (one buffer per "
      "temporary: 1024, 256 saved); constants 20, workspace 33554432; peak "
      "at step 3 (launch of kernel 2 'fused_sum')\n"
      "buffers:\n"
      "  #0 x: input 0 f32[2x3x4]\n"
      "  #1 \"weight \\\"W\\\"\": input 1 f32[4x5]\n"
      "  #2 \"bias\\x0aterm\": constant f32[5]\n"
      "  #3 %mm: temp f32[2x3x5] at 0\n"
      "  #4 \"sum \\xc3\\xa9\": temp f32[2x3x5] at 0\n"
      "  #5 reshaped: alias of #4 f32[6x5]\n"
      "  #6 row max: temp f32[6] at 256\n"
      "  #7 total: temp f32[scalar] at 512\n"
      "kernels:\n"
      "  k0 fused_add: loop, work 30, vector 2, in0 may become out0, ptx 207 "
      "bytes\n";
  EXPECT_EQ(plan.substr(0, sizeof(kHead) - 1), kHead);
}

//===----------------------------------------------------------------------===//
// Robustness
//===----------------------------------------------------------------------===//

TEST(Executable, RejectsEveryPrefix) {
  std::string file = modelFile();
  EXPECT_EQ(errorOfBytes(""), "not an .fsx file: the file is empty");
  for (size_t n = 1; n < file.size(); ++n) {
    std::string error = errorOfBytes(std::string_view(file).substr(0, n));
    ASSERT_EQ(error.rfind("truncated .fsx file: ", 0), 0u)
        << "prefix of " << n << " bytes: " << error;
  }
  // Also a header that breaks off mid-line, with the line number.
  EXPECT_EQ(errorOfBytes(file.substr(0, bytesOf(kModelHeader).find("[2,3,5]"))),
            "truncated .fsx file: the header breaks off in line 9");
}

TEST(Executable, RejectsHugeCountsQuickly) {
  // Each of these would need exabytes if the parser reserved what the header
  // declares; it must check against the bytes present first.
  auto headerWith = [](const std::string &from, const std::string &to) {
    return replaceOnce(modelFile(), from, to);
  };
  std::string error =
      errorOfBytes(headerWith("buffers 8\n", "buffers 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 5 declares "
                        "4611686018427387904 buffers, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  error =
      errorOfBytes(headerWith("kernels 3\n", "kernels 9223372036854775807\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 14 declares "
                        "9223372036854775807 kernels, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  error = errorOfBytes(headerWith("steps 4\n", "steps 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 18 declares "
                        "4611686018427387904 steps, more than the remaining ",
                        0),
            0u)
      << error;
  error = errorOfBytes(
      headerWith("ptx-texts 2\n", "ptx-texts 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 25 declares "
                        "4611686018427387904 ptx texts, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  error = errorOfBytes(
      headerWith("constants 1\n", "constants 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 29 declares "
                        "4611686018427387904 constants, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  EXPECT_EQ(errorOfBytes(headerWith("constants 1\n", "constants -1\n")),
            "invalid .fsx file: line 29: negative number of constants -1");
  // The bound, exactly: after "buffers 2" 8 bytes are left, which one
  // record could fill but not two.
  EXPECT_EQ(errorOfBytes("fusec-executable 5\nentry \"f\"\narch \"a\"\n"
                         "memory arena 0 lower-bound 0 peak-step 0 "
                         "workspace 0\nbuffers 2\n12345678"),
            "truncated .fsx file: line 5 declares 2 buffers, more than the "
            "remaining 8 bytes of the file can hold");
  EXPECT_EQ(errorOfBytes(
                headerWith("payload 344\n", "payload 4611686018427387904\n")),
            "truncated .fsx file: the header declares 4611686018427387904 "
            "bytes of payload, found 344");
  EXPECT_EQ(errorOfBytes(headerWith("constant 0 offset 324 length 20\n",
                                    "constant 0 offset 324 length "
                                    "9223372036854775807\n")),
            "invalid .fsx file: constant 0: offset 324 and length "
            "9223372036854775807 lie outside the 344-byte payload");
  EXPECT_EQ(errorOfBytes(headerWith("constant 0 offset 324 length 20\n",
                                    "constant 0 offset 9223372036854775807 "
                                    "length 9223372036854775807\n")),
            "invalid .fsx file: constant 0: offset 9223372036854775807 and "
            "length 9223372036854775807 lie outside the 344-byte payload");
  // A shape of huge dimensions is only arithmetic, never an allocation.
  EXPECT_EQ(errorOfBytes(headerWith("[2,3,5] offset 0 \"%mm\"",
                                    "[9223372036854775807,"
                                    "9223372036854775807] offset 0 \"%mm\"")),
            "invalid .fsx file: buffer 3 (\"%mm\"): the number of elements of "
            "shape [9223372036854775807,9223372036854775807] overflows int64");
}

/// Mutates `file` at random: byte flips, bytes set to characters that matter
/// to the syntax, insertions and deletions, mostly in the header.
std::string mutate(std::string file, std::mt19937_64 &rng) {
  static const char kInteresting[] = "0123456789 -\n\"\\[],x";
  size_t header = bytesOf(kModelHeader).size();
  int edits = 1 + int(rng() % 3);
  for (int e = 0; e < edits && !file.empty(); ++e) {
    size_t limit = rng() % 5 == 0 ? file.size() : std::min(header, file.size());
    size_t at = rng() % limit;
    switch (rng() % 5) {
    case 0:
      file[at] = char(file[at] ^ (1 << (rng() % 8)));
      break;
    case 1:
      file[at] = char(rng());
      break;
    case 2:
      file[at] = kInteresting[rng() % (sizeof(kInteresting) - 1)];
      break;
    case 3:
      file.insert(file.begin() + at,
                  kInteresting[rng() % (sizeof(kInteresting) - 1)]);
      break;
    default:
      file.erase(at, 1 + rng() % 3);
      break;
    }
  }
  return file;
}

TEST(Executable, SurvivesRandomMutations) {
  std::mt19937_64 rng(20240611);
  std::string file = modelFile();
  int accepted = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string bytes = mutate(file, rng);
    std::string error;
    std::optional<Executable> exe = parseExecutable(bytes, error);
    if (!exe) {
      ASSERT_FALSE(error.empty());
      continue;
    }
    // Whatever is accepted is canonical: it serializes to the same bytes.
    ++accepted;
    ASSERT_EQ(serializeExecutable(*exe), bytes) << "mutation " << i;
  }
  // Some mutations (in names, the PTX, constant data) keep the file valid.
  EXPECT_GT(accepted, 0);
}

TEST(Executable, SurvivesRandomBytes) {
  std::mt19937_64 rng(7);
  std::string prefix = "fusec-executable 5\n";
  for (int i = 0; i < 2000; ++i) {
    std::string bytes = i % 2 ? prefix : std::string();
    size_t n = rng() % 200;
    for (size_t j = 0; j < n; ++j)
      bytes += char(rng());
    std::string error;
    EXPECT_FALSE(parseExecutable(bytes, error));
    EXPECT_FALSE(error.empty());
  }
}

} // namespace
