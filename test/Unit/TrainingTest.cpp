//===- TrainingTest.cpp - Mixed precision and training steps --------------===//
//
// fusec::applyMixedPrecision and fusec::buildTrainStep through their C++
// API: step functions run on the interpreter with hand-picked state, so the
// loss-scaling state machine is checked transition by transition (skip,
// backoff, count, growth) and a skipped step is shown to return every
// parameter and state bit for bit. Expected values are by hand.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/MixedPrecision.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"
#include "fusec/InitAll.h"
#include "fusec/Interpreter/Interpreter.h"

#include "TestUtil.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::test;

namespace {

/// sum(x @ w): the gradient is x^T @ ones, independent of w. With the
/// matmul in f16, the seed (the loss scale) reaches it as an f16 value, so
/// a scale above 65504 overflows.
constexpr const char *kLinear = R"mlir(
func.func @loss(%w: tensor<2x1xf32> {fusec.param}, %x: tensor<2x2xf32>) -> tensor<f32> {
  %0 = fusec.matmul %x, %w : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x1xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1] : tensor<2x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
)mlir";

class TrainingTest : public ::testing::Test {
protected:
  TrainingTest() {
    mlir::DialectRegistry registry;
    fusec::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    context.getDiagEngine().registerHandler(
        [this](mlir::Diagnostic &d) { diagnostics += d.str() + "\n"; });
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(const char *source) {
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return module;
  }

  std::vector<Buffer> run(mlir::func::FuncOp func, std::vector<Buffer> args) {
    Interpreter interpreter;
    auto results = interpreter.run(func, args);
    EXPECT_TRUE(mlir::succeeded(results)) << diagnostics;
    if (mlir::failed(results))
      return {};
    return std::vector<Buffer>(results->begin(), results->end());
  }

  mlir::MLIRContext context;
  std::string diagnostics;
};

bool sameBits(const Buffer &a, const Buffer &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.sizeInBytes()) == 0;
}

float scalarF32(const Buffer &b) { return b.as<float>()[0]; }
int32_t scalarI32(const Buffer &b) { return b.as<int32_t>()[0]; }

TEST_F(TrainingTest, LossScalingStateMachine) {
  auto module = parse(kLinear);
  TrainingOptions options;
  options.train = "loss";
  options.optimizer = Optimizer::Adam;
  options.learningRate = 0.5;
  options.lossScaleInterval = 3;
  MixedPrecisionOptions mixed;
  mixed.precision = LowPrecision::F16;
  auto step = buildTrainStep(*module, options, mixed);
  ASSERT_TRUE(mlir::succeeded(step)) << diagnostics;
  ASSERT_TRUE(mlir::succeeded(mlir::verify(*module))) << diagnostics;
  // (w, x, m, v, t, scale, good) -> (loss, w', m', v', t', scale', good',
  // skipped).
  ASSERT_EQ(step->getNumArguments(), 7u);
  ASSERT_EQ(step->getNumResults(), 8u);

  Buffer w = makeF32({2, 1}, {0.5f, -0.25f});
  Buffer x = makeF32({2, 2}, {1, 2, 3, 4});
  Buffer m = makeF32({2, 1}, {0.125f, -1.0f});
  Buffer v = makeF32({2, 1}, {2.0f, 0.5f});
  Buffer t = makeI32({}, {7});
  auto scale = [](float s) { return makeF32({}, {s}); };
  auto good = [](int32_t g) { return makeI32({}, {g}); };

  // Overflow: 65536 is inf in f16. Skipped: w, m, v, t bit-identical; the
  // scale halves, the count restarts.
  std::vector<Buffer> r = run(*step, {w, x, m, v, t, scale(65536), good(2)});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(scalarF32(r[0]), 0.5f); // sum(x @ w) = 0 + 0.5
  EXPECT_TRUE(sameBits(r[1], w));
  EXPECT_TRUE(sameBits(r[2], m));
  EXPECT_TRUE(sameBits(r[3], v));
  EXPECT_TRUE(sameBits(r[4], t));
  EXPECT_EQ(scalarF32(r[5]), 32768.0f);
  EXPECT_EQ(scalarI32(r[6]), 0);
  EXPECT_EQ(r[7].as<uint8_t>()[0], 1);

  // A good step below the interval: the count grows, the scale stays, and
  // the update is Adam's with the unscaled gradient g = [4, 6]:
  // m' = 0.9 m + 0.1 g, t' = 8.
  r = run(*step, {w, x, m, v, t, scale(1024), good(0)});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[7].as<uint8_t>()[0], 0);
  EXPECT_EQ(scalarF32(r[5]), 1024.0f);
  EXPECT_EQ(scalarI32(r[6]), 1);
  EXPECT_EQ(scalarI32(r[4]), 8);
  expectClose(r[2], {0.9 * 0.125 + 0.1 * 4, 0.9 * -1.0 + 0.1 * 6});
  expectClose(r[3], {0.999 * 2.0 + 0.001 * 16, 0.999 * 0.5 + 0.001 * 36}, "v");
  // p' = p - lr * (m' / (1 - 0.9^8)) / (sqrt(v' / (1 - 0.999^8)) + 1e-8).
  {
    double m0 = 0.9 * 0.125 + 0.1 * 4, m1 = 0.9 * -1.0 + 0.1 * 6;
    double v0 = 0.999 * 2.0 + 0.001 * 16, v1 = 0.999 * 0.5 + 0.001 * 36;
    double c1 = 1 - std::pow(0.9, 8), c2 = 1 - std::pow(0.999, 8);
    expectClose(r[1],
                {0.5 - 0.5 * (m0 / c1) / (std::sqrt(v0 / c2) + 1e-8),
                 -0.25 - 0.5 * (m1 / c1) / (std::sqrt(v1 / c2) + 1e-8)},
                "w'");
  }

  // The interval-th good step in a row: the scale doubles, the count
  // restarts.
  r = run(*step, {w, x, m, v, t, scale(1024), good(2)});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(scalarF32(r[5]), 2048.0f);
  EXPECT_EQ(scalarI32(r[6]), 0);

  // A NaN gradient (a NaN input) is also skipped.
  Buffer xNaN = makeF32({2, 2}, {1, 2, std::nanf(""), 4});
  r = run(*step, {w, xNaN, m, v, t, scale(8), good(1)});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[7].as<uint8_t>()[0], 1);
  EXPECT_TRUE(sameBits(r[1], w));
  EXPECT_TRUE(sameBits(r[2], m));
  EXPECT_EQ(scalarF32(r[5]), 4.0f);
}

TEST_F(TrainingTest, ScaleDoesNotGrowToInfinity) {
  // GradScaler keeps the scale when the grown one would not be finite; the
  // count still restarts. f32 throughout, so only the scale decides.
  auto module = parse(kLinear);
  TrainingOptions options;
  options.train = "loss";
  options.momentum = 0;
  options.learningRate = 0;
  options.lossScale = "dynamic";
  options.lossScaleInterval = 1;
  options.lossScaleGrowth = 16;
  auto step = buildTrainStep(*module, options, MixedPrecisionOptions());
  ASSERT_TRUE(mlir::succeeded(step)) << diagnostics;
  Buffer w = makeF32({2, 1}, {0.5f, -0.25f});
  Buffer x = makeF32({2, 2}, {1, 2, 3, 4});
  // The scaled gradients [4, 6] * 2^124 are finite; 2^124 * 16 is not.
  float big = 0x1p124f;
  std::vector<Buffer> r =
      run(*step, {w, x, makeF32({}, {big}), makeI32({}, {0})});
  ASSERT_EQ(r.size(), 5u); // loss, w', scale', good', skipped
  EXPECT_EQ(r[4].as<uint8_t>()[0], 0);
  EXPECT_EQ(scalarF32(r[2]), big);
  EXPECT_EQ(scalarI32(r[3]), 0);
  r = run(*step, {w, x, makeF32({}, {0x1p100f}), makeI32({}, {0})});
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(scalarF32(r[2]), 0x1p104f);
}

TEST_F(TrainingTest, GradientsAreUnscaled) {
  // Plain SGD without momentum: w' = w - lr * g exactly, whatever the
  // (power of two) scale the gradient was computed with.
  auto module = parse(kLinear);
  TrainingOptions options;
  options.train = "loss";
  options.momentum = 0;
  options.learningRate = 0.125;
  MixedPrecisionOptions mixed;
  mixed.precision = LowPrecision::F16;
  auto step = buildTrainStep(*module, options, mixed);
  ASSERT_TRUE(mlir::succeeded(step)) << diagnostics;
  Buffer w = makeF32({2, 1}, {0.5f, -0.25f});
  Buffer x = makeF32({2, 2}, {1, 2, 3, 4});
  for (float s : {1.0f, 64.0f, 8192.0f}) {
    std::vector<Buffer> r =
        run(*step, {w, x, makeF32({}, {s}), makeI32({}, {0})});
    ASSERT_EQ(r.size(), 5u); // loss, w', scale', good', skipped
    expectClose(r[1], {0.5 - 0.125 * 4, -0.25 - 0.125 * 6});
  }
}

TEST_F(TrainingTest, BadOptionsLeaveTheModuleUnchanged) {
  auto module = parse(kLinear);
  std::string before;
  llvm::raw_string_ostream(before) << *module;
  auto tryBuild = [&](TrainingOptions options,
                      MixedPrecisionOptions mixed = {}) {
    options.train = options.train.empty() ? "loss" : options.train;
    diagnostics.clear();
    EXPECT_TRUE(mlir::failed(buildTrainStep(*module, options, mixed)));
    std::string after;
    llvm::raw_string_ostream(after) << *module;
    EXPECT_EQ(before, after);
    return diagnostics;
  };
  // (An unknown optimizer or precision cannot be expressed: both are
  // enums, which the option parsers check.)
  TrainingOptions o;
  o.lossScale = "static:0";
  EXPECT_NE(tryBuild(o).find("loss scale 'static:0'"), std::string::npos);
  o = {};
  o.lossScaleInterval = 0;
  EXPECT_NE(tryBuild(o).find("the growth interval must be between 1"),
            std::string::npos);
  o = {};
  MixedPrecisionOptions mixed;
  mixed.precision = LowPrecision::F16;
  mixed.deny = {"matmul"};
  mixed.allow = {"matmul"};
  EXPECT_NE(tryBuild(o, mixed).find("'matmul' is in both"), std::string::npos);
  mixed = {};
  mixed.precision = LowPrecision::F16;
  mixed.keepIOLowPrecision = true;
  EXPECT_NE(tryBuild(o, mixed).find("keep-io-low-precision does not apply"),
            std::string::npos);
  o = {};
  o.train = "missing";
  EXPECT_NE(tryBuild(o).find("no function named 'missing'"), std::string::npos);
}

TEST_F(TrainingTest, MixedPrecisionCountsAndRejects) {
  auto module = parse(kLinear);
  llvm::SmallVector<mlir::func::FuncOp> funcs(
      module->getOps<mlir::func::FuncOp>());
  MixedPrecisionOptions options;
  options.precision = LowPrecision::BF16;
  auto stats = applyMixedPrecision(*module, funcs, options);
  ASSERT_TRUE(mlir::succeeded(stats)) << diagnostics;
  // The matmul is painted; the reduction stays f32. Casts: x, w (operands).
  EXPECT_EQ(stats->lowOps, 1);
  EXPECT_EQ(stats->casts, 2);
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));

  options.clear = {"nosuch"};
  diagnostics.clear();
  EXPECT_TRUE(mlir::failed(applyMixedPrecision(*module, funcs, options)));
  EXPECT_NE(diagnostics.find("'nosuch' in the clear list"), std::string::npos);
}

} // namespace
