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
const char kModelHeader[] = R"fsx(fusec-executable 1
entry "forward"
arch "sm_90"
buffers 8
buffer 0 input 0 f32 [2,3,4] "x"
buffer 1 input 1 f32 [4,5] "weight \"W\""
buffer 2 constant 0 f32 [5] "bias\x0aterm"
buffer 3 temp f32 [2,3,5] "%mm"
buffer 4 temp f32 [2,3,5] "sum \xc3\xa9"
buffer 5 alias 4 f32 [6,5] "reshaped"
buffer 6 temp f32 [6] "row max"
buffer 7 temp f32 [] "total"
kernels 3
kernel 0 elementwise work 30 row-length 0 vector-width 2 ptx 0 "fused_add"
kernel 1 row-reduction work 6 row-length 5 vector-width 1 ptx 0 "fused_max"
kernel 2 reduction work 1 row-length 0 vector-width 1 ptx 1 "fused_sum"
steps 4
step 0 matmul a 0 b 1 c 3
step 1 launch kernel 0 grid 1 block 128 args [3,2,4]
step 2 launch kernel 1 grid 6 block 32 args [5,6]
step 3 launch kernel 2 grid 1 block 1 args [6,7]
inputs [0,1]
outputs [7,5]
ptx-texts 2
ptx 0 offset 0 length 207
ptx 1 offset 207 length 117
constants 1
constant 0 offset 324 length 20
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
                  std::vector<int64_t> shape, std::string name) {
  BufferDesc b;
  b.kind = kind;
  b.index = index;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.name = std::move(name);
  return b;
}

KernelDesc kernel(std::string name, KernelKind kind, int64_t work,
                  int64_t rowLength, int64_t vectorWidth, int64_t ptxIndex) {
  KernelDesc k;
  k.name = std::move(name);
  k.kind = kind;
  k.work = work;
  k.rowLength = rowLength;
  k.vectorWidth = vectorWidth;
  k.ptxIndex = ptxIndex;
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
  exe.buffers = {
      buffer(BufferKind::Input, 0, DType::F32, {2, 3, 4}, "x"),
      buffer(BufferKind::Input, 1, DType::F32, {4, 5}, "weight \"W\""),
      buffer(BufferKind::Constant, 0, DType::F32, {5}, "bias\nterm"),
      buffer(BufferKind::Temp, -1, DType::F32, {2, 3, 5}, "%mm"),
      buffer(BufferKind::Temp, -1, DType::F32, {2, 3, 5}, "sum \xc3\xa9"),
      buffer(BufferKind::Alias, 4, DType::F32, {6, 5}, "reshaped"),
      buffer(BufferKind::Temp, -1, DType::F32, {6}, "row max"),
      buffer(BufferKind::Temp, -1, DType::F32, {}, "total"),
  };
  exe.kernels = {
      kernel("fused_add", KernelKind::Elementwise, 30, 0, 2, 0),
      kernel("fused_max", KernelKind::RowReduction, 6, 5, 1, 0),
      kernel("fused_sum", KernelKind::Reduction, 1, 0, 1, 1),
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
  ASSERT_EQ(a.buffers.size(), b.buffers.size());
  for (size_t i = 0; i < a.buffers.size(); ++i) {
    SCOPED_TRACE("buffer " + std::to_string(i));
    EXPECT_EQ(a.buffers[i].kind, b.buffers[i].kind);
    EXPECT_EQ(a.buffers[i].dtype, b.buffers[i].dtype);
    EXPECT_EQ(a.buffers[i].shape, b.buffers[i].shape);
    EXPECT_EQ(a.buffers[i].index, b.buffers[i].index);
    EXPECT_EQ(a.buffers[i].name, b.buffers[i].name);
  }
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    SCOPED_TRACE("kernel " + std::to_string(i));
    EXPECT_EQ(a.kernels[i].name, b.kernels[i].name);
    EXPECT_EQ(a.kernels[i].kind, b.kernels[i].kind);
    EXPECT_EQ(a.kernels[i].work, b.kernels[i].work);
    EXPECT_EQ(a.kernels[i].rowLength, b.kernels[i].rowLength);
    EXPECT_EQ(a.kernels[i].vectorWidth, b.kernels[i].vectorWidth);
    EXPECT_EQ(a.kernels[i].ptxIndex, b.kernels[i].ptxIndex);
  }
  EXPECT_EQ(a.ptx, b.ptx);
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

TEST(Executable, MinimalExecutable) {
  const char kFile[] = "fusec-executable 1\n"
                       "entry \"f\"\n"
                       "arch \"sm_80\"\n"
                       "buffers 0\n"
                       "kernels 0\n"
                       "steps 0\n"
                       "inputs []\n"
                       "outputs []\n"
                       "ptx-texts 0\n"
                       "constants 0\n"
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
  const char kFile[] =
      "fusec-executable 1\n"
      "entry \"e\"\n"
      "arch \"sm_100a\"\n"
      "buffers 3\n"
      "buffer 0 temp i1 [9223372036854775807] \"max\"\n"
      "buffer 1 temp i64 [0,9223372036854775807,9223372036854775807] "
      "\"empty\"\n"
      "buffer 2 temp f32 [] \"\"\n"
      "kernels 1\n"
      "kernel 0 reduction work 9223372036854775807 row-length "
      "9223372036854775807 vector-width 9223372036854775807 ptx 0 \"k\"\n"
      "steps 1\n"
      "step 0 launch kernel 0 grid 4294967295 block 1024 args [0,1,2,0]\n"
      "inputs []\n"
      "outputs [0,0]\n"
      "ptx-texts 1\n"
      "ptx 0 offset 0 length 0\n"
      "constants 0\n"
      "payload 0\n";
  Executable exe;
  exe.entry = "e";
  exe.arch = "sm_100a";
  exe.buffers = {
      buffer(BufferKind::Temp, -1, DType::I1, {INT64_MAX}, "max"),
      buffer(BufferKind::Temp, -1, DType::I64, {0, INT64_MAX, INT64_MAX},
             "empty"),
      buffer(BufferKind::Temp, -1, DType::F32, {}, ""),
  };
  exe.kernels = {
      kernel("k", KernelKind::Reduction, INT64_MAX, INT64_MAX, INT64_MAX, 0)};
  exe.ptx = {""};
  exe.steps = {launch(0, UINT32_MAX, 1024, {0, 1, 2, 0})};
  exe.outputs = {0, 0};
  EXPECT_EQ(serializeExecutable(exe), kFile);
  std::string error;
  std::optional<Executable> parsed = parseExecutable(kFile, error);
  ASSERT_TRUE(parsed) << error;
  expectSameExecutable(*parsed, exe);
}

TEST(Executable, EveryDTypeRoundTrips) {
  const char kFile[] = "fusec-executable 1\n"
                       "entry \"f\"\n"
                       "arch \"sm_90\"\n"
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
                       "constants 6\n"
                       "constant 0 offset 0 length 8\n"
                       "constant 1 offset 8 length 6\n"
                       "constant 2 offset 14 length 4\n"
                       "constant 3 offset 18 length 3\n"
                       "constant 4 offset 21 length 4\n"
                       "constant 5 offset 25 length 8\n"
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
  EXPECT_NE(bytes.find("buffer 7 temp f32 [] "
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
  exe.kernels[1].name = all;
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

TEST(Executable, BroadcastBatchedMatmulIsValid) {
  Executable exe = makeModel();
  // a [2,1,3,4] x b [5,4,6] -> c [2,5,3,6].
  exe.buffers[0].shape = {2, 1, 3, 4};
  exe.buffers[1].shape = {5, 4, 6};
  exe.buffers[3].shape = {2, 5, 3, 6};
  EXPECT_EQ(errorOf(exe), "");
  // b [1,4,5] broadcasts against a's batch [2].
  exe = makeModel();
  exe.buffers[1].shape = {1, 4, 5};
  EXPECT_EQ(errorOf(exe), "");
  // Plain 2-D.
  exe = makeModel();
  exe.buffers[0].shape = {3, 4};
  exe.buffers[3].shape = {3, 5};
  EXPECT_EQ(errorOf(exe), "");
}

//===----------------------------------------------------------------------===//
// Magic and version
//===----------------------------------------------------------------------===//

TEST(Executable, RejectsOtherVersions) {
  Executable exe = makeModel();
  exe.version = 2;
  EXPECT_EQ(errorOf(exe),
            "unsupported .fsx version 2; this fusec reads version 1");
  exe.version = 0;
  EXPECT_EQ(errorOf(exe),
            "unsupported .fsx version 0; this fusec reads version 1");
  // A later version may change everything after the first line.
  EXPECT_EQ(errorOfBytes("fusec-executable 4294967295\n\x01\x02"),
            "unsupported .fsx version 4294967295; this fusec reads version 1");
  EXPECT_EQ(errorOfBytes("fusec-executable 12345678901234567890\nx"),
            "unsupported .fsx version 12345678901234567890; this fusec reads "
            "version 1");
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
            "invalid .fsx file: line 4: number of buffers 08 is not in "
            "canonical form (no leading zeros, no -0)");
  EXPECT_EQ(errorOfEdit("grid 1 block 128", "grid -0 block 128"),
            "invalid .fsx file: line 19: grid size -0 is not in canonical "
            "form (no leading zeros, no -0)");
  EXPECT_EQ(errorOfEdit("buffers 8\n", "buffers +8\n"),
            "invalid .fsx file: line 4: expected number of buffers, found "
            "\"+8\"");
  EXPECT_EQ(errorOfEdit("[2,3,4]", "[2,3, 4]"),
            "invalid .fsx file: line 5: expected dimension, found \" 4] "
            "\\\"x\\\"\"");
  EXPECT_EQ(errorOfEdit("work 30 ", "work 9223372036854775808 "),
            "invalid .fsx file: line 14: work 9223372036854775808 is out of "
            "the range of int64");
  EXPECT_EQ(errorOfEdit("work 30 ", "work -9223372036854775809 "),
            "invalid .fsx file: line 14: work -9223372036854775809 is out of "
            "the range of int64");
  EXPECT_EQ(errorOfEdit("grid 1 block 128", "grid 4294967296 block 128"),
            "invalid .fsx file: line 19: grid size 4294967296 is out of the "
            "range of uint32");
  EXPECT_EQ(errorOfEdit("grid 1 block 128", "grid 1 block -1"),
            "invalid .fsx file: line 19: block size -1 is out of the range of "
            "uint32");
}

TEST(Executable, RejectsMalformedLines) {
  EXPECT_EQ(errorOfEdit("buffer 0 input", "buffer 0  input"),
            "invalid .fsx file: line 5: expected a buffer kind, found \" "
            "input 0 f32 [2,3,4] \\\"x\\\"\"");
  EXPECT_EQ(errorOfEdit("entry \"forward\"\n", "entry \"forward\"\r\n"),
            "invalid .fsx file: line 2: expected \"\\x0a\", found \"\\x0d\"");
  EXPECT_EQ(errorOfEdit("buffer 1 input", "buffer 2 input"),
            "invalid .fsx file: line 6: expected buffer 1, found buffer 2");
  EXPECT_EQ(errorOfEdit("buffer 3 temp", "buffer 3 tmp"),
            "invalid .fsx file: line 8: unknown buffer kind \"tmp\" (expected "
            "input, constant, temp or alias)");
  EXPECT_EQ(errorOfEdit("f32 [5]", "f64 [5]"),
            "invalid .fsx file: line 7: unknown dtype \"f64\" (expected f32, "
            "f16, bf16, i1, i32 or i64)");
  EXPECT_EQ(errorOfEdit("f32 [5]", "F32 [5]"),
            "invalid .fsx file: line 7: expected a dtype, found \"F32 [5] "
            "\\\"bias\\\\x0aterm\\\"\"");
  EXPECT_EQ(errorOfEdit("kernel 2 reduction", "kernel 2 scan"),
            "invalid .fsx file: line 16: unknown kernel kind \"scan\" "
            "(expected elementwise, row-reduction or reduction)");
  EXPECT_EQ(errorOfEdit("step 0 matmul", "step 0 gemm"),
            "invalid .fsx file: line 18: unknown step kind \"gemm\" (expected "
            "launch or matmul)");
  EXPECT_EQ(errorOfEdit("steps 4\n", "steps 4\n\n"),
            "invalid .fsx file: line 18: expected \"step \", found \"\\x0a\"");
  EXPECT_EQ(errorOfEdit("inputs [0,1]", "inputs [0,1,]"),
            "invalid .fsx file: line 22: expected buffer index, found \"]\"");
  EXPECT_EQ(errorOfEdit("kernels 3\n", "kernels 3 \n"),
            "invalid .fsx file: line 13: expected \"\\x0a\", found \" \"");
}

TEST(Executable, RejectsNonCanonicalStrings) {
  EXPECT_EQ(errorOfEdit("\"sum \\xc3\\xa9\"", "\"sum \\xC3\\xa9\""),
            "invalid .fsx file: line 9: escape \"\\\\xC3\" needs two "
            "lowercase hex digits");
  EXPECT_EQ(errorOfEdit("[2,3,4] \"x\"", "[2,3,4] \"\\x78\""),
            "invalid .fsx file: line 5: escape \"\\\\x78\" of a printable "
            "character (write it as itself, or \\\" and \\\\)");
  EXPECT_EQ(errorOfEdit("\"weight \\\"W\\\"\"", "\"weight \\x22W\\x22\""),
            "invalid .fsx file: line 6: escape \"\\\\x22\" of a printable "
            "character (write it as itself, or \\\" and \\\\)");
  EXPECT_EQ(errorOfEdit("\"sum \\xc3\\xa9\"", "\"sum \xc3\xa9\""),
            "invalid .fsx file: line 9: byte 0xc3 in a string must be written "
            "as \\xc3");
  EXPECT_EQ(errorOfEdit("\"bias\\x0aterm\"", "\"bias\\nterm\""),
            "invalid .fsx file: line 7: unknown escape \"\\\\n\" in a string "
            "(only \\\" \\\\ and \\xHH)");
  EXPECT_EQ(errorOfEdit("\"bias\\x0aterm\"", "\"bias\nterm\""),
            "invalid .fsx file: line 7: byte 0x0a in a string must be written "
            "as \\x0a");
  EXPECT_EQ(errorOfEdit("\"row max\"", "\"row\tmax\""),
            "invalid .fsx file: line 11: byte 0x09 in a string must be written "
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
            "invalid .fsx file: the payload has 344 bytes but its PTX texts "
            "and constants take 343");
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
            "invalid .fsx file: line 3: expected \"arch \", found \"buffers "
            "8\"");
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
  exe.buffers.push_back(
      buffer(BufferKind::Temp, -1, DType::F32, {1, 1}, "one"));
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
  EXPECT_EQ(errorOfChange([](Executable &e) { e.kernels[1].name.clear(); }),
            "invalid .fsx file: kernel 1 (\"\"): the symbol name is empty");
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
            "invalid .fsx file: step 0: matmul operand b, buffer 2 "
            "(\"bias\\x0aterm\") of [5] f32, has rank 1; matmul needs rank 2 "
            "or more");
  EXPECT_EQ(errorOfChange([](Executable &e) { e.steps[0].matmul.c = 7; }),
            "invalid .fsx file: step 0: matmul operand c, buffer 7 "
            "(\"total\") of [] f32, has rank 0; matmul needs rank 2 or more");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.buffers[1].dtype = DType::F16; }),
      "invalid .fsx file: step 0: matmul operands of different dtypes: a "
      "[2,3,4] f32, b [4,5] f16, c [2,3,5] f32");
  EXPECT_EQ(
      errorOfChange([](Executable &e) { e.buffers[3].dtype = DType::BF16; }),
      "invalid .fsx file: step 0: matmul operands of different dtypes: a "
      "[2,3,4] f32, b [4,5] f32, c [2,3,5] bf16");
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
            "invalid .fsx file: step 0: matmul operands of different dtypes: "
            "a [2,3,4] f16, b [4,5] f16, c [2,3,5] bf16");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[0].dtype = e.buffers[1].dtype = DType::I32;
              e.buffers[3].dtype = DType::I64;
            }),
            "invalid .fsx file: step 0: matmul operands of different dtypes: "
            "a [2,3,4] i32, b [4,5] i32, c [2,3,5] i64");
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
            "truncated .fsx file: the header breaks off in line 8");
}

TEST(Executable, RejectsHugeCountsQuickly) {
  // Each of these would need exabytes if the parser reserved what the header
  // declares; it must check against the bytes present first.
  auto headerWith = [](const std::string &from, const std::string &to) {
    return replaceOnce(modelFile(), from, to);
  };
  std::string error =
      errorOfBytes(headerWith("buffers 8\n", "buffers 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 4 declares "
                        "4611686018427387904 buffers, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  error =
      errorOfBytes(headerWith("kernels 3\n", "kernels 9223372036854775807\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 13 declares "
                        "9223372036854775807 kernels, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  error = errorOfBytes(headerWith("steps 4\n", "steps 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 17 declares "
                        "4611686018427387904 steps, more than the remaining ",
                        0),
            0u)
      << error;
  error = errorOfBytes(
      headerWith("ptx-texts 2\n", "ptx-texts 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 24 declares "
                        "4611686018427387904 ptx texts, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  error = errorOfBytes(
      headerWith("constants 1\n", "constants 4611686018427387904\n"));
  EXPECT_EQ(error.rfind("truncated .fsx file: line 27 declares "
                        "4611686018427387904 constants, more than the "
                        "remaining ",
                        0),
            0u)
      << error;
  EXPECT_EQ(errorOfBytes(headerWith("constants 1\n", "constants -1\n")),
            "invalid .fsx file: line 27: negative number of constants -1");
  // The bound, exactly: after "buffers 2" 8 bytes are left, which one
  // record could fill but not two.
  EXPECT_EQ(errorOfBytes("fusec-executable 1\nentry \"f\"\narch \"a\"\n"
                         "buffers 2\n12345678"),
            "truncated .fsx file: line 4 declares 2 buffers, more than the "
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
  EXPECT_EQ(errorOfBytes(headerWith("[2,3,5] \"%mm\"",
                                    "[9223372036854775807,"
                                    "9223372036854775807] \"%mm\"")),
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
  std::string prefix = "fusec-executable 1\n";
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
