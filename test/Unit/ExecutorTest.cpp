//===- ExecutorTest.cpp - The plan executor on the host device ------------===//
//
// rt::LoadedExecutable over rt::HostDevice with kernels written here in the
// generated kernels' form (HostCuda.h), on executables built by hand, with
// their memory plan made by rt::planMemory and read back through the .fsx
// reader: in-place reuse, a matmul step with its epilogue, the memory
// limit, poisoning and the input checks. Expected values are computed by
// hand.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Executor.h"
#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Runtime/MemoryPlan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "fusec/Runtime/Host/HostCuda.h"

using namespace fusec;
using namespace fusec::rt;

namespace {

constexpr int kN = 1000;

__global__ void addOne(const float *in, float *out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < kN;
       i += gridDim.x * blockDim.x)
    out[i] = in[i] + 1.0f;
}

__global__ void writeNothing(const float *in, float *out) {}

void addOneTrampoline(void *p) {
  void **a = static_cast<void **>(p);
  addOne(static_cast<const float *>(a[0]), static_cast<float *>(a[1]));
}
void addOneHost(unsigned grid, unsigned block, void **args) {
  fusec_host::launch(grid, block, &addOneTrampoline, args);
}
void writeNothingTrampoline(void *p) {
  void **a = static_cast<void **>(p);
  writeNothing(static_cast<const float *>(a[0]), static_cast<float *>(a[1]));
}
void writeNothingHost(unsigned grid, unsigned block, void **args) {
  fusec_host::launch(grid, block, &writeNothingTrampoline, args);
}

std::unique_ptr<HostDevice> device() {
  return HostDevice::create(
      [](const std::string &name) -> HostDevice::KernelEntry {
        if (name == "add_one")
          return &addOneHost;
        if (name == "write_nothing")
          return &writeNothingHost;
        return nullptr;
      },
      "kernels of ExecutorTest");
}

BufferDesc buffer(BufferKind kind, std::vector<int64_t> shape, int64_t index,
                  std::string name, DType dtype = DType::F32) {
  BufferDesc b;
  b.kind = kind;
  b.dtype = dtype;
  b.shape = std::move(shape);
  b.index = index;
  b.name = std::move(name);
  return b;
}

KernelDesc kernel(std::string name, bool inPlace) {
  KernelDesc k;
  k.name = std::move(name);
  k.kind = FusionKind::Loop;
  k.numInputs = 1;
  k.numOutputs = 1;
  k.params = {{DType::F32, kN}, {DType::F32, kN}};
  k.work = kN;
  if (inPlace)
    k.inPlace = {{0, 0}};
  k.ptxIndex = 0;
  return k;
}

Step launch(int64_t kernel, std::vector<int64_t> args) {
  Step s;
  s.kind = Step::Kind::Launch;
  s.launch.kernel = kernel;
  s.launch.gridSize = 2;
  s.launch.blockSize = 128;
  s.launch.args = std::move(args);
  return s;
}

/// x -> t0 = x + 1 -> t1 = t0 + 1, returned; planned, written and read
/// back (so the reader validates the plan).
Executable chain(bool inPlace) {
  Executable exe;
  exe.entry = "f";
  exe.arch = "sm_90";
  exe.buffers = {buffer(BufferKind::Input, {kN}, 0, "x"),
                 buffer(BufferKind::Temp, {kN}, -1, "t0"),
                 buffer(BufferKind::Temp, {kN}, -1, "t1")};
  exe.kernels = {kernel("add_one", inPlace)};
  exe.ptx = {"// no PTX: host kernels"};
  exe.steps = {launch(0, {0, 1}), launch(0, {1, 2})};
  exe.inputs = {0};
  exe.outputs = {2};
  planMemory(exe);
  std::string error;
  std::optional<Executable> parsed =
      parseExecutable(serializeExecutable(exe), error);
  EXPECT_TRUE(parsed) << error;
  return parsed ? *parsed : exe;
}

Buffer iota(int64_t n) {
  Buffer b = Buffer::allocate(DType::F32, {n});
  for (int64_t i = 0; i < n; ++i)
    b.as<float>()[i] = float(i) * 0.5f;
  return b;
}

} // namespace

TEST(Executor, RunsAChainInPlace) {
  Executable exe = chain(/*inPlace=*/true);
  // One allocation: t1 takes t0's bytes (4000 bytes, aligned to 4096).
  EXPECT_EQ(exe.buffers[1].offset, exe.buffers[2].offset);
  EXPECT_EQ(exe.memory.arenaBytes, 4096);
  EXPECT_EQ(exe.memory.lowerBoundBytes, 4096);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  // Twice: the recorded step list replays, poisoning included.
  for (int run = 0; run < 2; ++run) {
    std::optional<std::vector<Buffer>> out = loaded->run({iota(kN)}, error);
    ASSERT_TRUE(out) << error;
    ASSERT_EQ(out->size(), 1u);
    for (int i = 0; i < kN; ++i)
      ASSERT_EQ((*out)[0].as<float>()[i], float(i) * 0.5f + 2.0f) << i;
  }
}

TEST(Executor, WithoutPermissionTheChainTakesTwoBuffers) {
  Executable exe = chain(/*inPlace=*/false);
  EXPECT_NE(exe.buffers[1].offset, exe.buffers[2].offset);
  EXPECT_EQ(exe.memory.arenaBytes, 8192);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  std::optional<std::vector<Buffer>> out = loaded->run({iota(kN)}, error);
  ASSERT_TRUE(out) << error;
  EXPECT_EQ((*out)[0].as<float>()[kN - 1], float(kN - 1) * 0.5f + 2.0f);
}

TEST(Executor, PoisonsTemporariesOnTheHost) {
  Executable exe = chain(/*inPlace=*/false);
  exe.kernels[0].name = "write_nothing";
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  std::optional<std::vector<Buffer>> out = loaded->run({iota(kN)}, error);
  ASSERT_TRUE(out) << error;
  // Never written: every byte is the poison 0xff (a NaN).
  uint32_t bits;
  std::memcpy(&bits, (*out)[0].data(), 4);
  EXPECT_EQ(bits, 0xffffffffu);
  EXPECT_TRUE(std::isnan((*out)[0].as<float>()[kN / 2]));
}

TEST(Executor, RefusesAPlanOverTheLimitBeforeAllocating) {
  Executable exe = chain(/*inPlace=*/true);
  std::unique_ptr<HostDevice> host = device();
  ExecutionOptions options;
  // Arena 4096 + inputs 4096 = 8192 bytes.
  options.memoryLimit = 8191;
  std::string error;
  EXPECT_FALSE(LoadedExecutable::load(exe, *host, options, error));
  EXPECT_EQ(error, "'f' needs 8192 bytes (8.0 KiB): arena 4096, constants 0, "
                   "workspace 0, inputs 4096; the limit is 8191 bytes (7.9 "
                   "KiB); the arena's peak is at " +
                       describeStep(exe, exe.memory.peakStep));
  options.memoryLimit = 8192;
  EXPECT_TRUE(LoadedExecutable::load(exe, *host, options, error)) << error;
}

TEST(Executor, ChecksInputs) {
  Executable exe = chain(/*inPlace=*/true);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_FALSE(loaded->run({}, error));
  EXPECT_EQ(error, "'f' takes 1 input(s), 0 given");
  EXPECT_FALSE(loaded->run({iota(kN - 1)}, error));
  EXPECT_EQ(error, "input #0 is f32[999], the model takes f32[1000]");
  Buffer wide = Buffer::allocate(DType::F64, {kN});
  EXPECT_FALSE(loaded->run({wide}, error));
  EXPECT_EQ(error, "input #0 is f64[1000], the model takes f32[1000] (NumPy "
                   "arrays are float64 by default: save it with "
                   "np.save(path, array.astype(np.float32)))");
}

TEST(Executor, NamesMissingKernels) {
  Executable exe = chain(/*inPlace=*/true);
  exe.kernels[0].name = "absent";
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  EXPECT_FALSE(LoadedExecutable::load(exe, *host, {}, error));
  EXPECT_EQ(error, "the host kernels lack 'absent_host': were they compiled "
                   "from this model's --emit=cuda?");
}

TEST(Executor, RunsAMatmulWithItsEpilogue) {
  // relu(a @ b^T + bias) with a = [[1, 2, 3], [-4, 5, -6]] ([2, 3]) and
  // b stored transposed ([2, 3]: rows are the columns of the product).
  Executable exe;
  exe.entry = "mm";
  exe.arch = "sm_90";
  exe.buffers = {buffer(BufferKind::Input, {2, 3}, 0, "a"),
                 buffer(BufferKind::Input, {2, 3}, 1, "bt"),
                 buffer(BufferKind::Input, {2}, 2, "bias"),
                 buffer(BufferKind::Temp, {2, 2}, -1, "c")};
  Step s;
  s.kind = Step::Kind::Matmul;
  s.matmul.a = 0;
  s.matmul.b = 1;
  s.matmul.c = 3;
  s.matmul.transposeB = true;
  s.matmul.epilogue = MatmulEpilogue::ReluBias;
  s.matmul.bias = 2;
  exe.steps = {s};
  exe.inputs = {0, 1, 2};
  exe.outputs = {3};
  exe.memory.workspaceBytes = 4096;
  planMemory(exe);
  std::string error;
  std::optional<Executable> parsed =
      parseExecutable(serializeExecutable(exe), error);
  ASSERT_TRUE(parsed) << error;
  std::unique_ptr<HostDevice> host = device();
  auto loaded = LoadedExecutable::load(*parsed, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  auto make = [](Shape shape, std::vector<float> values) {
    Buffer b = Buffer::allocate(DType::F32, std::move(shape));
    std::memcpy(b.data(), values.data(), values.size() * 4);
    return b;
  };
  std::optional<std::vector<Buffer>> out =
      loaded->run({make({2, 3}, {1, 2, 3, -4, 5, -6}),
                   make({2, 3}, {1, 0, 1, 0, 1, -1}), make({2}, {0.5f, -2})},
                  error);
  ASSERT_TRUE(out) << error;
  // Row 0: [1+3, 2-3] + bias = [4.5, -3] -> relu [4.5, 0].
  // Row 1: [-4-6, 5+6] + bias = [-9.5, 9] -> relu [0, 9].
  const float *c = (*out)[0].as<float>();
  EXPECT_EQ(c[0], 4.5f);
  EXPECT_EQ(c[1], 0.0f);
  EXPECT_EQ(c[2], 0.0f);
  EXPECT_EQ(c[3], 9.0f);
}

TEST(Executor, FeedsOutputsBackOnTheDevice) {
  // x -> x + 2, fed back to x: run k returns iota + 2k and uploads nothing
  // after the first (the host device replays the copy like a kernel).
  Executable exe = chain(/*inPlace=*/true);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  ASSERT_TRUE(loaded->feedBack({{0, 0}}, error)) << error;
  Buffer x = iota(kN);
  std::optional<std::vector<Buffer>> out = loaded->run({&x}, {}, error);
  ASSERT_TRUE(out) << error;
  EXPECT_EQ((*out)[0].as<float>()[7], 3.5f + 2.0f);
  for (int run = 2; run <= 4; ++run) {
    out = loaded->run({nullptr}, {}, error);
    ASSERT_TRUE(out) << error;
    for (int i = 0; i < kN; ++i)
      ASSERT_EQ((*out)[0].as<float>()[i], float(i) * 0.5f + 2.0f * run) << i;
  }
  // An output not wanted is not downloaded; the slot holds the last value.
  out = loaded->run({nullptr}, {false}, error);
  ASSERT_TRUE(out) << error;
  EXPECT_FALSE((*out)[0]);
  std::optional<Buffer> now = loaded->readInput(0, error);
  ASSERT_TRUE(now) << error;
  EXPECT_EQ(now->as<float>()[kN - 1], float(kN - 1) * 0.5f + 10.0f);
}

TEST(Executor, RefusesFeedbackThatCannotBeCopied) {
  Executable exe = chain(/*inPlace=*/false);
  // A second input of another shape, which the output cannot feed.
  exe.buffers.push_back(buffer(BufferKind::Input, {3}, 1, "y"));
  exe.inputs.push_back(3);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_FALSE(loaded->feedBack({{0, 1}}, error));
  EXPECT_EQ(error, "cannot feed output 0 (f32[1000]) to input 1 (f32[3])");
  EXPECT_FALSE(loaded->feedBack({{0, 0}, {0, 0}}, error));
  EXPECT_EQ(error, "input 0 is fed twice");
  EXPECT_FALSE(loaded->feedBack({{1, 0}}, error));
  EXPECT_EQ(error, "cannot feed output 1 to input 0: there are 1 outputs and "
                   "2 inputs");
  // An output that is the input being overwritten.
  exe.outputs = {0};
  loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_FALSE(loaded->feedBack({{0, 0}}, error));
  EXPECT_EQ(error, "output 0 is input 0, which is fed back too");
}

TEST(Executor, PipelinesRunsOverTwoSlotSets) {
  // Three calls of x -> x + 2 with inputs iota, iota + 1, iota + 2.
  Executable exe = chain(/*inPlace=*/true);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  auto loaded = LoadedExecutable::load(exe, *host, {}, error);
  ASSERT_TRUE(loaded) << error;
  std::vector<std::vector<Buffer>> calls;
  for (int k = 0; k < 3; ++k) {
    Buffer x = iota(kN);
    for (int i = 0; i < kN; ++i)
      x.as<float>()[i] += float(k);
    calls.push_back({x});
  }
  std::optional<std::vector<std::vector<Buffer>>> out =
      loaded->runPipelined(calls, error);
  ASSERT_TRUE(out) << error;
  ASSERT_EQ(out->size(), 3u);
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < kN; ++i)
      ASSERT_EQ((*out)[size_t(k)][0].as<float>()[i],
                float(i) * 0.5f + float(k) + 2.0f)
          << k << " " << i;
  // The order a GPU overlaps: the inputs of call k+1 are uploaded (on the
  // copy queue, into the other slot set) before the host waits for call k.
  EXPECT_EQ(host->events(),
            (std::vector<std::string>{
                "upload 0", "replay 0", "upload 1", "synchronize", "replay 1",
                "upload 0", "synchronize", "replay 0", "synchronize"}));
  // Plain runs still use slot set 0 afterwards.
  std::optional<std::vector<Buffer>> again = loaded->run({iota(kN)}, error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ((*again)[0].as<float>()[3], 1.5f + 2.0f);
  // Feedback and pipelining do not mix.
  EXPECT_FALSE(loaded->feedBack({{0, 0}}, error));
  EXPECT_EQ(error, "feedback does not combine with pipelined runs");
}

TEST(Executor, PipelinedRunsFitTheLimit) {
  // The plan needs an arena of 4096 bytes and inputs of 4096 (4000
  // rounded up): it fits 9000 bytes, a second set of inputs does not.
  Executable exe = chain(/*inPlace=*/true);
  std::unique_ptr<HostDevice> host = device();
  std::string error;
  ExecutionOptions options;
  options.memoryLimit = 9000;
  auto loaded = LoadedExecutable::load(exe, *host, options, error);
  ASSERT_TRUE(loaded) << error;
  EXPECT_FALSE(loaded->runPipelined({{iota(kN)}}, error));
  EXPECT_EQ(error.rfind("pipelined runs need a second set of input slots "
                        "(4096 bytes (4.0 KiB))",
                        0),
            0u)
      << error;
}
