//===- CodegenTest.cpp - Planning and compiling to PTX, in process --------===//
//
// What the lit tests cannot reach through the CLI: an NVRTC error is
// reported at the fusion whose kernel it is, with NVRTC's log; the cache key
// covers everything the PTX depends on; a compile with a warm in-memory
// cache never calls NVRTC.
//
//===----------------------------------------------------------------------===//

#include "fusec/Codegen/Compile.h"
#include "fusec/Codegen/Nvrtc.h"
#include "fusec/InitAll.h"
#include "fusec/Runtime/Executable.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>

using namespace fusec;

namespace {

// A fusion at line 3, column 8 (after the pipeline, hand-written here).
const char *kModule = R"mlir(
func.func @f(%a: tensor<64xf32>) -> (tensor<64xf32>, tensor<4xf32>) {
  %0 = fusec.fusion (%a) : (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%x: tensor<64xf32>):
    %e = fusec.exp %x : tensor<64xf32>
    fusec.yield %e : tensor<64xf32>
  }
  %1 = fusec.fusion row_reduction (%0) : (tensor<64xf32>) -> tensor<4xf32> {
  ^bb0(%y: tensor<64xf32>):
    %r = fusec.reshape %y : tensor<64xf32> -> tensor<4x16xf32>
    %s = fusec.reduce_sum %r axes = [1] : tensor<4x16xf32> -> tensor<4xf32>
    fusec.yield %s : tensor<4xf32>
  }
  return %0, %1 : tensor<64xf32>, tensor<4xf32>
}
)mlir";

class CodegenTest : public ::testing::Test {
protected:
  CodegenTest() {
    mlir::DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  }
  mlir::func::FuncOp func() {
    return module->lookupSymbol<mlir::func::FuncOp>("f");
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

TEST_F(CodegenTest, PlanHasOneLaunchPerFusion) {
  ASSERT_TRUE(module);
  mlir::FailureOr<CompiledFunction> compiled =
      planFunction(func(), CompileOptions());
  ASSERT_TRUE(mlir::succeeded(compiled));
  const rt::Executable &exe = compiled->executable;
  ASSERT_EQ(exe.kernels.size(), 2u);
  EXPECT_EQ(exe.kernels[0].kind, FusionKind::Loop);
  EXPECT_EQ(exe.kernels[0].work, 64);
  EXPECT_EQ(exe.kernels[0].vectorWidth, 4); // 16 bytes of f32.
  EXPECT_EQ(exe.kernels[1].kind, FusionKind::RowReduction);
  EXPECT_EQ(exe.kernels[1].work, 4);
  EXPECT_EQ(exe.kernels[1].rowLength, 16);
  ASSERT_EQ(exe.steps.size(), 2u);
  // Buffers: the argument, then each fusion's result; the second launch
  // reads the first one's result.
  EXPECT_EQ(exe.steps[0].launch.args, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(exe.steps[1].launch.args, (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(exe.outputs, (std::vector<int64_t>{1, 2}));
  // exp reads its input where it writes: it may work in place (but its
  // input is the function's argument, which is not in the arena).
  EXPECT_EQ(exe.kernels[0].inPlace,
            (std::vector<std::pair<int64_t, int64_t>>{{0, 0}}));
  EXPECT_TRUE(exe.kernels[1].inPlace.empty());
  // Both results are outputs, live together to the end: 256 bytes each
  // (64 f32 = 256, 4 f32 = 16 aligned to 256), no sharing, no workspace.
  EXPECT_EQ(exe.memory.arenaBytes, 512);
  EXPECT_EQ(exe.memory.lowerBoundBytes, 512);
  EXPECT_EQ(exe.memory.workspaceBytes, 0);
  EXPECT_NE(exe.buffers[1].offset, exe.buffers[2].offset);
}

// A matmul fusion as the planner forms it: the transposed weight read
// through the flag, a bias and relu as the epilogue, the f16 result.
const char *kMatmulModule = R"mlir(
func.func @g(%x: tensor<8x16xf16>, %w: tensor<32x16xf16>, %b: tensor<32xf32>)
    -> tensor<8x32xf16> {
  %0 = fusec.fusion matmul (%x, %w, %b)
      : (tensor<8x16xf16>, tensor<32x16xf16>, tensor<32xf32>) -> tensor<8x32xf16> {
  ^bb0(%a: tensor<8x16xf16>, %wt: tensor<32x16xf16>, %bias: tensor<32xf32>):
    %t = fusec.transpose %wt, [1, 0] : tensor<32x16xf16> -> tensor<16x32xf16>
    %m = fusec.matmul %a, %t : tensor<8x16xf16>, tensor<16x32xf16> -> tensor<8x32xf32>
    %s = fusec.add %m, %bias : tensor<8x32xf32>, tensor<32xf32>
    %r = fusec.relu %s : tensor<8x32xf32>
    %h = fusec.cast %r : tensor<8x32xf32> to tensor<8x32xf16>
    fusec.yield %h : tensor<8x32xf16>
  }
  return %0 : tensor<8x32xf16>
}
)mlir";

TEST_F(CodegenTest, MatmulFusionIsOneStepWithItsEpilogue) {
  mlir::OwningOpRef<mlir::ModuleOp> m =
      mlir::parseSourceString<mlir::ModuleOp>(kMatmulModule, &context);
  ASSERT_TRUE(m);
  mlir::FailureOr<CompiledFunction> compiled =
      planFunction(m->lookupSymbol<mlir::func::FuncOp>("g"), CompileOptions());
  ASSERT_TRUE(mlir::succeeded(compiled));
  const rt::Executable &exe = compiled->executable;
  EXPECT_TRUE(exe.kernels.empty());
  ASSERT_EQ(exe.steps.size(), 1u);
  ASSERT_EQ(exe.steps[0].kind, rt::Step::Kind::Matmul);
  const rt::MatmulStep &step = exe.steps[0].matmul;
  EXPECT_EQ(step.a, 0);
  EXPECT_EQ(step.b, 1);
  EXPECT_EQ(step.bias, 2);
  EXPECT_FALSE(step.transposeA);
  EXPECT_TRUE(step.transposeB);
  EXPECT_EQ(step.epilogue, rt::MatmulEpilogue::ReluBias);
  EXPECT_EQ(exe.buffers[size_t(step.c)].dtype, DType::F16);
  // 32 MiB of workspace on sm_90 (NVIDIA's advice for Hopper).
  EXPECT_EQ(exe.memory.workspaceBytes, 32 << 20);
}

TEST_F(CodegenTest, CacheKeyCoversSourceOptionsAndCompiler) {
  std::vector<std::string> sm90 = Nvrtc::options("sm_90");
  std::string key = kernelCacheKey("source", sm90, "nvrtc A");
  EXPECT_EQ(key, kernelCacheKey("source", sm90, "nvrtc A"));
  EXPECT_NE(key, kernelCacheKey("source ", sm90, "nvrtc A"));
  EXPECT_NE(key, kernelCacheKey("source", Nvrtc::options("sm_80"), "nvrtc A"));
  EXPECT_NE(key, kernelCacheKey("source", sm90, "nvrtc B"));
}

TEST_F(CodegenTest, NvrtcErrorPointsAtTheFusion) {
  if (!Nvrtc::get())
    GTEST_SKIP() << "NVRTC is not available";
  ASSERT_TRUE(module);
  CompileOptions options;
  mlir::FailureOr<CompiledFunction> compiled = planFunction(func(), options);
  ASSERT_TRUE(mlir::succeeded(compiled));
  // Break the second kernel's source.
  compiled->kernels[1].body += "\nthis is not C++;\n";
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    std::string loc;
    llvm::raw_string_ostream os(loc);
    os << d.getLocation();
    message += loc + ": " + d.str() + "\n";
    return mlir::success();
  });
  EXPECT_TRUE(mlir::failed(compileToPtx(*compiled, options, func().getLoc())));
  EXPECT_NE(message.find("loc(\"-\":8:8): NVRTC cannot compile the kernel "
                         "of this fusion (fusec_"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("error"), std::string::npos) << message; // The log.
  EXPECT_NE(message.find("this is not C++"), std::string::npos) << message;
}

TEST_F(CodegenTest, WarmCacheCompilesNothing) {
  if (!Nvrtc::get())
    GTEST_SKIP() << "NVRTC is not available";
  ASSERT_TRUE(module);
  KernelCache cache(""); // Memory only.
  CompileOptions options;
  options.cache = &cache;
  std::vector<std::string> ptx;
  for (int pass = 0; pass < 2; ++pass) {
    mlir::FailureOr<CompiledFunction> compiled = planFunction(func(), options);
    ASSERT_TRUE(mlir::succeeded(compiled));
    ASSERT_TRUE(
        mlir::succeeded(compileToPtx(*compiled, options, func().getLoc())));
    int64_t modules = compiled->stats.modules;
    EXPECT_GE(modules, 1);
    EXPECT_LE(modules, 2);
    EXPECT_EQ(compiled->stats.compiled, pass == 0 ? modules : 0);
    EXPECT_EQ(compiled->stats.cacheHits, pass == 0 ? 0 : modules);
    EXPECT_EQ(int64_t(compiled->executable.ptx.size()), modules);
    if (pass == 0)
      ptx = compiled->executable.ptx;
    else
      EXPECT_EQ(compiled->executable.ptx, ptx);
  }
  // Every kernel's entry is in the module it points to.
  mlir::FailureOr<CompiledFunction> compiled = planFunction(func(), options);
  ASSERT_TRUE(mlir::succeeded(compiled));
  ASSERT_TRUE(
      mlir::succeeded(compileToPtx(*compiled, options, func().getLoc())));
  for (const rt::KernelDesc &k : compiled->executable.kernels)
    EXPECT_NE(compiled->executable.ptx[size_t(k.ptxIndex)].find(
                  ".visible .entry " + k.name + "("),
              std::string::npos);
}

} // namespace
