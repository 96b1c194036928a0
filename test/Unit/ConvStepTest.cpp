//===- ConvStepTest.cpp - Convolution steps of the .fsx format ------------===//
//
// A convolution step's line as docs/executable-format.md specifies it
// (written here by hand), its round trip, the convolution it stands for
// (sizes computed by hand from the conv2d formula), and each validation
// rule broken once in a valid executable, with the exact message.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Conv.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/MemoryPlan.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>

using namespace fusec;
using namespace fusec::rt;

namespace {

BufferDesc buffer(BufferKind kind, int64_t index, std::vector<int64_t> shape,
                  std::string name) {
  BufferDesc b;
  b.kind = kind;
  b.dtype = DType::F32;
  b.shape = std::move(shape);
  b.index = index;
  b.name = std::move(name);
  return b;
}

/// y = relu(conv(x, w) + bias) for x [1, 5, 4, 2], a 3x3 window with
/// strides [2, 1] and padding [1, 0, 1, 1]: OH = (5 + 1 + 0 - 3) / 2 + 1 = 2,
/// OW = (4 + 1 + 1 - 3) / 1 + 1 = 4, so the windows are [2*4, 3*3*2] =
/// [8, 18] and the result [8, 3].
Executable makeConv() {
  Executable exe;
  exe.entry = "conv";
  exe.arch = "sm_90";
  exe.buffers = {
      buffer(BufferKind::Input, 0, {1, 5, 4, 2}, "x"),
      buffer(BufferKind::Input, 1, {18, 3}, "w"),
      buffer(BufferKind::Input, 2, {3}, "bias"),
      buffer(BufferKind::Temp, -1, {8, 18}, "windows"),
      buffer(BufferKind::Temp, -1, {8, 3}, "y"),
  };
  KernelDesc gather;
  gather.name = "gather";
  gather.numInputs = 1;
  gather.numOutputs = 1;
  gather.params = {{DType::F32, 40}, {DType::F32, 144}};
  gather.work = 144;
  gather.ptxIndex = 0;
  exe.kernels = {gather};
  exe.ptx = {".version 8.4\n"};
  Step s;
  s.kind = Step::Kind::Conv;
  ConvStep &c = s.conv;
  c.input = 0;
  c.window.size = {3, 3};
  c.window.strides = {2, 1};
  c.window.padding = {1, 0, 1, 1};
  c.gather = {0, 1, 256, {0, 3}};
  c.product.a = 3;
  c.product.b = 1;
  c.product.c = 4;
  c.product.epilogue = MatmulEpilogue::ReluBias;
  c.product.bias = 2;
  exe.steps = {s};
  exe.inputs = {0, 1, 2};
  exe.outputs = {4};
  planMemory(exe);
  return exe;
}

std::string errorOf(const Executable &exe) {
  std::string error;
  if (parseExecutable(serializeExecutable(exe), error))
    return "";
  return error;
}

std::string errorOfChange(const std::function<void(Executable &)> &change) {
  Executable exe = makeConv();
  change(exe);
  return errorOf(exe);
}

const char kLine[] =
    "step 0 conv input 0 window [3,3] strides [2,1] dilations [1,1] padding "
    "[1,0,1,1] gather kernel 0 grid 1 block 256 args [0,3] product a 3 b 1 "
    "c 4 transpose-a 0 transpose-b 0 epilogue relu_bias bias 2\n";

TEST(ConvStep, WritesTheDocumentedLineAndReadsItBack) {
  Executable exe = makeConv();
  std::string bytes = serializeExecutable(exe);
  EXPECT_NE(bytes.find(kLine), std::string::npos) << bytes;
  std::string error;
  std::optional<Executable> parsed = parseExecutable(bytes, error);
  ASSERT_TRUE(parsed) << error;
  ASSERT_EQ(parsed->steps.size(), 1u);
  const ConvStep &c = parsed->steps[0].conv;
  EXPECT_EQ(parsed->steps[0].kind, Step::Kind::Conv);
  EXPECT_EQ(c.input, 0);
  EXPECT_EQ(c.window.size, (std::array<int64_t, 2>{3, 3}));
  EXPECT_EQ(c.window.strides, (std::array<int64_t, 2>{2, 1}));
  EXPECT_EQ(c.window.dilations, (std::array<int64_t, 2>{1, 1}));
  EXPECT_EQ(c.window.padding, (std::array<int64_t, 4>{1, 0, 1, 1}));
  EXPECT_EQ(c.gather.args, (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(c.product.bias, 2);
  EXPECT_EQ(serializeExecutable(*parsed), bytes);
}

TEST(ConvStep, DescribesItsConvolution) {
  Executable exe = makeConv();
  ConvCall call = describeConv(exe, exe.steps[0].conv);
  EXPECT_EQ(call.batch, 1);
  EXPECT_EQ(call.height, 5);
  EXPECT_EQ(call.width, 4);
  EXPECT_EQ(call.channels, 2);
  EXPECT_EQ(call.outHeight, 2);
  EXPECT_EQ(call.outWidth, 4);
  EXPECT_EQ(call.filters, 3);
  EXPECT_FALSE(call.filterTransposed);
  EXPECT_EQ(call.epilogue, MatmulEpilogue::ReluBias);
  EXPECT_FALSE(call.constantWeights); // The filter is an input.
  EXPECT_EQ(exe.steps[0].conv.window.describe(), "3x3/2,1");
}

TEST(ConvStep, WindowsAndResultNeverShareBytes) {
  // Both live at the one step: the plan gives them disjoint bytes, and the
  // reader checks that it does.
  Executable exe = makeConv();
  EXPECT_NE(exe.buffers[3].offset, exe.buffers[4].offset);
  EXPECT_EQ(errorOf(exe), "");
  EXPECT_EQ(describeStep(exe, 0), "step 0 (convolution)");
}

TEST(ConvStep, RejectsWhatItIsNot) {
  const std::string prefix = "invalid .fsx file: step 0: ";
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers[0].shape = {1, 5, 8};
              e.kernels[0].params[0].elements = 40;
            }),
            prefix + "convolution input f32[1,5,8] is not a rank-4 (NHWC) "
                     "tensor of the product's f32");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[0].conv.window.size = {0, 3};
            }),
            prefix + "convolution of the input [1,5,4,2]: the window, stride "
                     "and dilation along the height must be at least 1");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[0].conv.window.size = {9, 3};
            }),
            prefix + "convolution of the input [1,5,4,2]: the window along "
                     "the height spans 9 elements (with its dilation) but the "
                     "padded input has 6");
  // Windows of another geometry than the input's.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.steps[0].conv.window.strides = {1, 1};
            }),
            prefix + "the convolution's windows are [8,18], not "
                     "[N*OH*OW, KH*KW*C] of the input [1,5,4,2]");
  // The gather writes something else.
  EXPECT_EQ(
      errorOfChange([](Executable &e) {
        e.buffers.push_back(buffer(BufferKind::Temp, -1, {8, 18}, "other"));
        e.steps[0].conv.gather.args = {0, 5};
        planMemory(e);
      }),
      prefix + "the convolution's gather must be a launch whose one "
               "output is the windows (buffer 3)");
  // Another step reads the windows: a device that skips the gather would
  // leave it garbage.
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.buffers.push_back(buffer(BufferKind::Temp, -1, {144}, "copy"));
              e.kernels.push_back(e.kernels[0]);
              e.kernels[1].name = "copy";
              e.kernels[1].params = {{DType::F32, 144}, {DType::F32, 144}};
              Step s;
              s.launch = {1, 1, 256, {3, 5}};
              e.steps.push_back(s);
              e.outputs.push_back(5);
              planMemory(e);
            }),
            prefix + "the convolution's windows (buffer 3) must be a temp "
                     "that no other step accesses");
  // An output that is no buffer: the outputs' rule says so (found by
  // fusec-fuzz-fsx: the convolution's rule read it first).
  EXPECT_EQ(errorOfChange([](Executable &e) { e.outputs = {8}; }),
            "invalid .fsx file: outputs[0] is buffer 8, which does not exist "
            "(there are 5 buffers)");
  EXPECT_EQ(errorOfChange([](Executable &e) {
              e.outputs.push_back(3);
              planMemory(e);
            }),
            prefix + "the convolution's windows (buffer 3) are an output of "
                     "the executable");
}

TEST(ConvStep, RejectsMalformedFields) {
  std::string bytes = serializeExecutable(makeConv());
  auto edited = [&](const std::string &from, const std::string &to) {
    std::string s = bytes;
    s.replace(s.find(from), from.size(), to);
    std::string error;
    EXPECT_FALSE(parseExecutable(s, error));
    return error;
  };
  EXPECT_NE(edited("window [3,3]", "window [3,3,3]")
                .find("window has 3 values, not 2"),
            std::string::npos);
  EXPECT_NE(edited("padding [1,0,1,1]", "padding [1,0]")
                .find("padding has 2 values, not 4"),
            std::string::npos);
  EXPECT_NE(edited("conv input 0", "conv input 7")
                .find("convolution input 7 "
                      "does not exist"),
            std::string::npos);
}

} // namespace
