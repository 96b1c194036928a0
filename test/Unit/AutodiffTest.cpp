//===- AutodiffTest.cpp - Tests of reverse-mode differentiation -----------===//
//
// Gradient functions built by fusec::buildGradientFunction, run on the
// reference interpreter and compared with central finite differences of the
// forward function (also run on the interpreter): for every operation with a
// derivative, loss = reduce_sum(op(...) * r) with a fixed random r, so that
// the adjoint reaching the operation is not all ones. Exact expectations
// (zero gradients, accumulation, seeds, ties) are computed by hand.
//
//===----------------------------------------------------------------------===//

#include "fusec/Dialect/Fusec/Transforms/Autodiff.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/InitAll.h"
#include "fusec/Interpreter/Interpreter.h"

#include "TestUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::test;

namespace {

/// Step of the central differences, in f32.
constexpr double kStep = 1e-2;
/// Central differences have a truncation error of h^2/6 * f''' (below 1e-3
/// for the smooth inputs here, whose third derivatives stay below ~50) and a
/// rounding error of about eps_f32 * |loss| / h (~1e-5); 2e-2 relative leaves
/// room for both while a wrong rule (a missing factor, a wrong sign, a
/// gradient not summed back) is off by far more.
constexpr Tolerance kFiniteDifferenceTol{2e-2, 2e-3};

/// Deterministic pseudo-random numbers (SplitMix64), the same everywhere.
class Rng {
public:
  double uniform(double lo, double hi) {
    state += 0x9e3779b97f4a7c15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return lo + (hi - lo) * double(z >> 11) * 0x1p-53;
  }

private:
  uint64_t state = 42;
};

int64_t count(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string tensorType(const Shape &shape, const std::string &elem = "f32") {
  std::string s = "tensor<";
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elem + ">";
}

/// One argument of a loss function.
struct Arg {
  std::string name;
  Shape shape;
  std::vector<float> values;
  bool param = true;
};

class AutodiffTest : public ::testing::Test {
protected:
  AutodiffTest() {
    mlir::DialectRegistry registry;
    fusec::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  //===--- Inputs ---------------------------------------------------------===//

  std::vector<float> uniform(const Shape &shape, double lo, double hi) {
    std::vector<float> v;
    for (int64_t i = 0; i < count(shape); ++i)
      v.push_back(float(rng.uniform(lo, hi)));
    return v;
  }
  /// Magnitudes in [lo, hi) with random signs: away from a kink at 0.
  std::vector<float> awayFromZero(const Shape &shape, double lo, double hi) {
    std::vector<float> v = uniform(shape, lo, hi);
    for (float &x : v)
      if (rng.uniform(0, 1) < 0.5)
        x = -x;
    return v;
  }
  /// Values offset + 0.2 k for random integers k in [-8, 8]: two such
  /// lists with offsets 0 and 0.1 never come closer than 0.1 (no ties for
  /// max/min within a step).
  std::vector<float> grid(const Shape &shape, double offset) {
    std::vector<float> v;
    for (int64_t i = 0; i < count(shape); ++i)
      v.push_back(float(offset + 0.2 * std::floor(rng.uniform(-8, 9))));
    return v;
  }
  /// A permutation of 0.3 k + offset: distinct values at least 0.3 apart.
  std::vector<float> distinct(const Shape &shape, double offset) {
    int64_t n = count(shape);
    std::vector<float> v;
    for (int64_t i = 0; i < n; ++i)
      v.push_back(float(0.3 * double(i) + offset));
    for (int64_t i = n - 1; i > 0; --i)
      std::swap(v[size_t(i)], v[size_t(rng.uniform(0, double(i + 1)))]);
    return v;
  }

  //===--- Modules --------------------------------------------------------===//

  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &source) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "failed to parse:\n" << source;
    return module;
  }

  /// `@loss(args..., %r) = reduce_sum(%y * %r)` where `body` defines `%y`
  /// of shape `yShape` from the arguments.
  static std::string lossSource(const std::vector<Arg> &args,
                                const std::string &body, const Shape &yShape) {
    std::string y = tensorType(yShape);
    std::string s = "func.func @loss(";
    for (const Arg &a : args)
      s += "%" + a.name + ": " + tensorType(a.shape) +
           (a.param ? " {fusec.param}" : "") + ", ";
    s += "%r: " + y + ") -> tensor<f32> {\n" + body + "\n";
    s += "  %p = fusec.mul %y, %r : " + y + "\n";
    std::string axes;
    for (size_t i = 0; i < yShape.size(); ++i)
      axes += (i ? ", " : "") + std::to_string(i);
    s += "  %l = fusec.reduce_sum %p axes = [" + axes + "] : " + y +
         " -> tensor<f32>\n";
    s += "  return %l : tensor<f32>\n}\n";
    return s;
  }

  /// Builds `<name>_grad` and checks that it verifies.
  mlir::func::FuncOp gradientOf(mlir::ModuleOp module, llvm::StringRef name,
                                bool seed = false) {
    auto func = module.lookupSymbol<mlir::func::FuncOp>(name);
    EXPECT_TRUE(func) << "no function " << name.str();
    if (!func)
      return {};
    GradientOptions options;
    options.name = (name + "_grad").str();
    options.seedArgument = seed;
    mlir::FailureOr<mlir::func::FuncOp> grad;
    {
      mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
        diagnostics.push_back(d.str());
        return mlir::success();
      });
      grad = buildGradientFunction(func, options);
    }
    EXPECT_TRUE(mlir::succeeded(grad)) << allDiagnostics();
    if (mlir::failed(grad))
      return {};
    EXPECT_TRUE(mlir::succeeded(mlir::verify(*grad)));
    EXPECT_EQ(grad->getOperation()->getPrevNode(), func.getOperation());
    return *grad;
  }

  /// Runs `func`, expecting success.
  llvm::SmallVector<Buffer> run(mlir::func::FuncOp func,
                                const std::vector<Buffer> &args) {
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagnostics.push_back(d.str());
      return mlir::success();
    });
    Interpreter interpreter;
    mlir::FailureOr<llvm::SmallVector<Buffer>> results =
        interpreter.run(func, args);
    EXPECT_TRUE(mlir::succeeded(results)) << allDiagnostics();
    return mlir::succeeded(results) ? *results : llvm::SmallVector<Buffer>{};
  }

  static std::vector<Buffer> buffers(const std::vector<Arg> &args) {
    std::vector<Buffer> b;
    for (const Arg &a : args)
      b.push_back(makeF32(a.shape, a.values));
    return b;
  }

  /// The first result of `func` on `args`, as a double.
  double lossAt(mlir::func::FuncOp func, const std::vector<Arg> &args) {
    llvm::SmallVector<Buffer> r = run(func, buffers(args));
    return r.empty() ? std::nan("") : valueAt(r[0], 0);
  }

  /// Checks the gradient of every param of @loss in `source` (whose
  /// arguments are `args`) against central differences of @loss.
  /// With `lowerWindows`, fusec-lower-windows runs first (as in fusec's
  /// pipeline, which differentiates convolutions and pooling lowered).
  void checkAgainstFiniteDifferences(const std::string &source,
                                     const std::vector<Arg> &args,
                                     const std::string &what,
                                     bool lowerWindows = false) {
    SCOPED_TRACE(what);
    mlir::OwningOpRef<mlir::ModuleOp> module = parse(source);
    ASSERT_TRUE(module);
    if (lowerWindows) {
      mlir::PassManager pm(&context);
      pm.addNestedPass<mlir::func::FuncOp>(createFusecLowerWindows());
      ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
    }
    auto loss = module->lookupSymbol<mlir::func::FuncOp>("loss");
    mlir::func::FuncOp grad = gradientOf(*module, "loss");
    ASSERT_TRUE(grad);
    llvm::SmallVector<Buffer> results = run(grad, buffers(args));
    size_t params = llvm::count_if(args, [](const Arg &a) { return a.param; });
    ASSERT_EQ(results.size(), 1 + params) << allDiagnostics();
    // The loss is recomputed exactly as the forward function computes it.
    EXPECT_TRUE(sameFloat(valueAt(results[0], 0), lossAt(loss, args)));
    size_t k = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].param)
        continue;
      const Buffer &g = results[++k];
      ASSERT_EQ(g.shape(), args[i].shape) << args[i].name;
      for (size_t j = 0; j < args[i].values.size(); ++j) {
        std::vector<Arg> plus = args, minus = args;
        float x = args[i].values[j];
        plus[i].values[j] = float(x + kStep);
        minus[i].values[j] = float(x - kStep);
        double fd = (lossAt(loss, plus) - lossAt(loss, minus)) /
                    (double(plus[i].values[j]) - double(minus[i].values[j]));
        EXPECT_TRUE(
            closeFloat(valueAt(g, int64_t(j)), fd, kFiniteDifferenceTol))
            << "d loss / d " << args[i].name << "[" << j << "]";
      }
    }
  }

  /// loss = reduce_sum(y * r), `body` defining %y of `yShape` from `args`
  /// (the last argument %r is added here, random).
  void check(std::vector<Arg> args, const std::string &body,
             const Shape &yShape, const std::string &what,
             bool lowerWindows = false) {
    std::string source = lossSource(args, body, yShape);
    args.push_back({"r", yShape, uniform(yShape, -1.5, 1.5), false});
    checkAgainstFiniteDifferences(source, args, what + "\n" + source,
                                  lowerWindows);
  }

  std::string allDiagnostics() const {
    std::string s;
    for (const std::string &d : diagnostics)
      s += d + "\n";
    return s;
  }
  bool diagnosed(const std::string &text) const {
    for (const std::string &d : diagnostics)
      if (d.find(text) != std::string::npos)
        return true;
    return false;
  }

  /// Expects buildGradientFunction on @loss to fail with `message` and
  /// leave the module as it was.
  void expectFailure(const std::string &source, const std::string &message) {
    mlir::OwningOpRef<mlir::ModuleOp> module = parse(source);
    ASSERT_TRUE(module);
    auto func = module->lookupSymbol<mlir::func::FuncOp>("loss");
    ASSERT_TRUE(func);
    size_t before =
        std::distance(module->getBody()->begin(), module->getBody()->end());
    GradientOptions options;
    options.name = "loss_grad";
    diagnostics.clear();
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagnostics.push_back(d.str());
      return mlir::success();
    });
    EXPECT_TRUE(mlir::failed(buildGradientFunction(func, options)));
    EXPECT_TRUE(diagnosed(message)) << allDiagnostics();
    EXPECT_EQ(size_t(std::distance(module->getBody()->begin(),
                                   module->getBody()->end())),
              before);
    EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
  }

  Rng rng;
  mlir::MLIRContext context;
  std::vector<std::string> diagnostics;
};

//===----------------------------------------------------------------------===//
// Unary operations
//===----------------------------------------------------------------------===//

// Every fusec operation declares its properties and, except fusion and its
// terminator, a derivative rule (a list of operations kept by hand, as
// autodiff once had, is what this replaces).
TEST_F(AutodiffTest, EveryOperationDeclaresItsPropertiesAndRule) {
  context.loadDialect<FusecDialect>();
  size_t ops = 0;
  for (mlir::RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "fusec")
      continue;
    SCOPED_TRACE(name.getStringRef().str());
    ++ops;
    // Convolutions and pooling are differentiated lowered
    // (fusec-lower-windows runs before training).
    bool structural = name.getStringRef() == "fusec.fusion" ||
                      name.getStringRef() == "fusec.yield" ||
                      name.getStringRef() == "fusec.conv2d" ||
                      name.getStringRef() == "fusec.max_pool2d" ||
                      name.getStringRef() == "fusec.avg_pool2d";
    EXPECT_EQ(name.hasInterface<FusecOpInterface>(),
              name.getStringRef() != "fusec.yield");
    EXPECT_EQ(name.hasInterface<EvaluableOpInterface>(),
              name.getStringRef() != "fusec.yield");
    EXPECT_EQ(name.hasInterface<DifferentiableOpInterface>(), !structural);
    EXPECT_EQ(name.hasInterface<ReductionOpInterface>(),
              name.getStringRef().starts_with("fusec.reduce_"));
  }
  EXPECT_GE(ops, 36u);
}

TEST_F(AutodiffTest, Unary) {
  Shape s{3, 4};
  std::string t = tensorType(s);
  struct Case {
    std::string op;
    std::vector<float> x;
  };
  std::vector<Case> cases = {
      {"fusec.neg", uniform(s, -2, 2)},
      {"fusec.abs", awayFromZero(s, 0.1, 2)},
      {"fusec.exp", uniform(s, -1.5, 1.5)},
      {"fusec.log", uniform(s, 0.5, 3)},
      {"fusec.sqrt", uniform(s, 0.5, 3)},
      {"fusec.rsqrt", uniform(s, 0.5, 3)},
      {"fusec.reciprocal", awayFromZero(s, 0.5, 2)},
      {"fusec.tanh", uniform(s, -2, 2)},
      {"fusec.sigmoid", uniform(s, -3, 3)},
      {"fusec.relu", awayFromZero(s, 0.1, 2)},
      {"fusec.erf", uniform(s, -1.5, 1.5)},
      {"fusec.gelu", uniform(s, -3, 3)},
      {"fusec.sin", uniform(s, -3, 3)},
      {"fusec.cos", uniform(s, -3, 3)},
      {"fusec.atan", uniform(s, -3, 3)},
      // Zero gradients: values at least 0.05 from any integer and half
      // (0.05 + 0.2 k), so no step crosses a jump.
      {"fusec.floor", grid(s, 0.05)},
      {"fusec.ceil", grid(s, 0.05)},
      {"fusec.round", grid(s, 0.05)},
      {"fusec.trunc", grid(s, 0.05)},
  };
  for (const Case &c : cases)
    check({{"x", s, c.x}}, "  %y = " + c.op + " %x : " + t, s, c.op);
  check({{"x", s, uniform(s, -3, 3)}},
        "  %y = fusec.gelu %x approximate = tanh : " + t, s, "gelu tanh");
}

/// A scalar (rank-0) parameter broadcast into a vector.
TEST_F(AutodiffTest, RankZero) {
  check({{"x", {}, {0.7f}}, {"v", {3}, uniform({3}, -1, 1)}},
        "  %e = fusec.exp %x : tensor<f32>\n"
        "  %y = fusec.mul %e, %v : tensor<f32>, tensor<3xf32>",
        {3}, "rank 0");
}

//===----------------------------------------------------------------------===//
// Binary operations, with broadcasting
//===----------------------------------------------------------------------===//

TEST_F(AutodiffTest, Binary) {
  struct Shapes {
    Shape lhs, rhs, result;
  };
  std::vector<Shapes> shapes = {
      {{2, 3, 4}, {3, 1}, {2, 3, 4}}, // rhs: new leading dim and a 1
      {{4}, {3, 4}, {3, 4}},          // lhs broadcast
      {{}, {2, 3}, {2, 3}},           // rank-0 lhs
      {{2, 1}, {1, 3}, {2, 3}},       // both broadcast
  };
  for (const Shapes &sh : shapes) {
    std::string types = tensorType(sh.lhs) + ", " + tensorType(sh.rhs);
    auto body = [&](const std::string &op) {
      return "  %y = " + op + " %a, %b : " + types;
    };
    for (std::string op : {"fusec.add", "fusec.sub", "fusec.mul"})
      check({{"a", sh.lhs, uniform(sh.lhs, -2, 2)},
             {"b", sh.rhs, uniform(sh.rhs, -2, 2)}},
            body(op), sh.result, op + " " + types);
    check({{"a", sh.lhs, uniform(sh.lhs, -2, 2)},
           {"b", sh.rhs, awayFromZero(sh.rhs, 0.5, 2)}},
          body("fusec.div"), sh.result, "div " + types);
    for (std::string op : {"fusec.max", "fusec.min"})
      check({{"a", sh.lhs, grid(sh.lhs, 0.1)}, {"b", sh.rhs, grid(sh.rhs, 0)}},
            body(op), sh.result, op + " " + types);
    check({{"a", sh.lhs, uniform(sh.lhs, 0.5, 2)},
           {"b", sh.rhs, uniform(sh.rhs, -1.5, 1.5)}},
          body("fusec.pow"), sh.result, "pow " + types);
  }
}

/// pow with a negative base: the exponent's gradient is 0 there (and the
/// base's is still b * a^(b-1) for an integer exponent).
TEST_F(AutodiffTest, PowNegativeBase) {
  auto module = parse(R"mlir(
func.func @loss(%a: tensor<2xf32> {fusec.param}, %b: tensor<2xf32> {fusec.param}) -> tensor<f32> {
  %y = fusec.pow %a, %b : tensor<2xf32>
  %l = fusec.reduce_sum %y axes = [0] : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  // a = [-2, 2], b = [2, 2]: y = [4, 4]; d/da = 2a = [-4, 4];
  // d/db = [0 (a <= 0), 4 log 2].
  auto r = run(grad, {makeF32({2}, {-2, 2}), makeF32({2}, {2, 2})});
  ASSERT_EQ(r.size(), 3u) << allDiagnostics();
  expectExact(r[1], {-4, 4}, "d/da");
  ASSERT_EQ(r[2].numElements(), 2);
  EXPECT_TRUE(sameFloat(valueAt(r[2], 0), 0.0));
  EXPECT_TRUE(closeFloat(valueAt(r[2], 1), 4 * std::log(2.0), kF32Tol));
}

/// Ties of max go to the lhs, of min too; abs at 0 passes the gradient,
/// relu at 0 does not.
TEST_F(AutodiffTest, KinksAndTies) {
  auto module = parse(R"mlir(
func.func @loss(%a: tensor<3xf32> {fusec.param}, %b: tensor<3xf32> {fusec.param}, %c: tensor<3xf32> {fusec.param}, %r: tensor<3xf32>) -> tensor<f32> {
  %0 = fusec.max %a, %b : tensor<3xf32>
  %1 = fusec.min %b, %a : tensor<3xf32>
  %2 = fusec.abs %c : tensor<3xf32>
  %3 = fusec.relu %c : tensor<3xf32>
  %4 = fusec.add %0, %1 : tensor<3xf32>
  %5 = fusec.mul %4, %r : tensor<3xf32>
  %6 = fusec.add %5, %2 : tensor<3xf32>
  %7 = fusec.add %6, %3 : tensor<3xf32>
  %l = fusec.reduce_sum %7 axes = [0] : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  // a = [1, 2, 3], b = [1, 5, 0]: max(a, b) picks [a (tie), b, a], min(b, a)
  // picks [b (tie: its lhs), a, b]. So d/da = r * [1 + 0, 0 + 1, 1 + 0],
  // d/db = r * [0 + 1, 1 + 0, 0 + 1]; c = [0, -1, 2]: abs' = [1, -1, 1],
  // relu' = [0, 0, 1].
  auto r = run(grad, {makeF32({3}, {1, 2, 3}), makeF32({3}, {1, 5, 0}),
                      makeF32({3}, {0, -1, 2}), makeF32({3}, {3, 5, 7})});
  ASSERT_EQ(r.size(), 4u) << allDiagnostics();
  expectExact(r[1], {3, 5, 7}, "d/da");
  expectExact(r[2], {3, 5, 7}, "d/db");
  expectExact(r[3], {1, -1, 2}, "d/dc");
}

//===----------------------------------------------------------------------===//
// compare, select, cast
//===----------------------------------------------------------------------===//

TEST_F(AutodiffTest, Select) {
  // Condition from a non-parameter; the false value broadcasts.
  check({{"c", {3, 4}, awayFromZero({3, 4}, 0.1, 1), false},
         {"t", {3, 4}, uniform({3, 4}, -2, 2)},
         {"f", {4}, uniform({4}, -2, 2)}},
        "  %z = fusec.constant dense<0.0> : tensor<f32>\n"
        "  %m = fusec.compare gt, %c, %z : tensor<3x4xf32>, tensor<f32>\n"
        "  %y = fusec.select %m, %t, %f : tensor<3x4xi1>, tensor<3x4xf32>, "
        "tensor<4xf32>",
        {3, 4}, "select");
  // Condition from the parameter itself (piecewise: x > 0 ? x * x : -x).
  check({{"x", {6}, awayFromZero({6}, 0.2, 2)}},
        "  %z = fusec.constant dense<0.0> : tensor<f32>\n"
        "  %m = fusec.compare gt, %x, %z : tensor<6xf32>, tensor<f32>\n"
        "  %s = fusec.mul %x, %x : tensor<6xf32>\n"
        "  %n = fusec.neg %x : tensor<6xf32>\n"
        "  %y = fusec.select %m, %s, %n : tensor<6xi1>, tensor<6xf32>",
        {6}, "select on the parameter's sign");
}

TEST_F(AutodiffTest, CastFloatToFloat) {
  // f32 -> f16 -> f32: the f16 step rounds the forward (and the
  // differences), so only the structure and a loose value are checked:
  // d/dx sum(cast(cast(x)) * r) = r (cast back to f32 through f16).
  auto module = parse(R"mlir(
func.func @loss(%x: tensor<3xf32> {fusec.param}, %r: tensor<3xf32>) -> tensor<f32> {
  %h = fusec.cast %x : tensor<3xf32> to tensor<3xf16>
  %f = fusec.cast %h : tensor<3xf16> to tensor<3xf32>
  %p = fusec.mul %f, %r : tensor<3xf32>
  %l = fusec.reduce_sum %p axes = [0] : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  // r is exactly representable in f16.
  auto r = run(grad, {makeF32({3}, {0.1f, 0.2f, 0.3f}),
                      makeF32({3}, {0.5f, -2.0f, 1.25f})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[1], {0.5, -2.0, 1.25}, "d/dx");
}

// f64 parameters get f64 gradients: the mean's 1/count is computed in f64
// (0.3333333333333333 for 3 elements, where f32 would give
// 0.3333333432674408), and an f64 island inside an f32 loss (torch-mlir's
// layer norm statistics) passes the gradient through.
TEST_F(AutodiffTest, F64) {
  auto module = parse(R"mlir(
func.func @loss(%x: tensor<3xf64> {fusec.param}) -> tensor<f64> {
  %m = fusec.reduce_mean %x axes = [0] : tensor<3xf64> -> tensor<f64>
  return %m : tensor<f64>
}
func.func @island(%x: tensor<3xf32> {fusec.param}) -> tensor<f32> {
  %d = fusec.cast %x : tensor<3xf32> to tensor<3xf64>
  %m = fusec.reduce_mean %d axes = [0] : tensor<3xf64> -> tensor<f64>
  %l = fusec.cast %m : tensor<f64> to tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  Buffer x = alloc(DType::F64, {3});
  x.as<double>()[0] = 0.5;
  x.as<double>()[1] = -2.0;
  x.as<double>()[2] = 1.25;
  auto r = run(grad, {x});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[0], {-0.25 / 3.0 * 1.0}, "loss");
  expectExact(r[1], {1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0}, "d/dx");

  mlir::func::FuncOp island = gradientOf(*module, "island");
  ASSERT_TRUE(island);
  r = run(island, {makeF32({3}, {0.5f, -2.0f, 1.25f})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[1],
              {double(float(1.0 / 3.0)), double(float(1.0 / 3.0)),
               double(float(1.0 / 3.0))},
              "d/dx");
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST_F(AutodiffTest, ReshapeTransposeBroadcast) {
  check({{"x", {3, 4}, uniform({3, 4}, -2, 2)}},
        "  %e = fusec.exp %x : tensor<3x4xf32>\n"
        "  %y = fusec.reshape %e : tensor<3x4xf32> -> tensor<2x6xf32>",
        {2, 6}, "reshape");
  check({{"x", {2, 3, 4}, uniform({2, 3, 4}, -2, 2)}},
        "  %e = fusec.tanh %x : tensor<2x3x4xf32>\n"
        "  %y = fusec.transpose %e, [2, 0, 1] : tensor<2x3x4xf32> -> "
        "tensor<4x2x3xf32>",
        {4, 2, 3}, "transpose");
  check({{"x", {3, 1}, uniform({3, 1}, -2, 2)}},
        "  %y = fusec.broadcast_to %x : tensor<3x1xf32> -> tensor<2x3x4xf32>",
        {2, 3, 4}, "broadcast_to");
  check({{"x", {}, {0.5f}}},
        "  %y = fusec.broadcast_to %x : tensor<f32> -> tensor<2x3xf32>", {2, 3},
        "broadcast_to from rank 0");
}

TEST_F(AutodiffTest, ConcatSplit) {
  check({{"a", {2, 3}, uniform({2, 3}, -2, 2)},
         {"b", {1, 3}, uniform({1, 3}, -2, 2)},
         {"c", {4, 3}, uniform({4, 3}, -2, 2)}},
        "  %y = fusec.concat %a, %b, %c axis = 0 : tensor<2x3xf32>, "
        "tensor<1x3xf32>, tensor<4x3xf32> -> tensor<7x3xf32>",
        {7, 3}, "concat axis 0");
  check({{"a", {2, 2}, uniform({2, 2}, -2, 2)},
         {"b", {2, 3}, uniform({2, 3}, -2, 2), false},
         {"c", {2, 1}, uniform({2, 1}, -2, 2)}},
        "  %e = fusec.exp %a : tensor<2x2xf32>\n"
        "  %y = fusec.concat %e, %b, %c axis = 1 : tensor<2x2xf32>, "
        "tensor<2x3xf32>, tensor<2x1xf32> -> tensor<2x6xf32>",
        {2, 6}, "concat axis 1");
  // The middle piece is not used: zeros for it.
  check({{"x", {5, 3}, uniform({5, 3}, -2, 2)}},
        "  %s:3 = fusec.split %x axis = 0 sizes = [2, 1, 2] : tensor<5x3xf32> "
        "-> tensor<2x3xf32>, tensor<1x3xf32>, tensor<2x3xf32>\n"
        "  %y = fusec.mul %s#0, %s#2 : tensor<2x3xf32>",
        {2, 3}, "split axis 0");
  check({{"x", {2, 6}, uniform({2, 6}, -2, 2)}},
        "  %s:2 = fusec.split %x axis = 1 sizes = [4, 2] : tensor<2x6xf32> "
        "-> tensor<2x4xf32>, tensor<2x2xf32>\n"
        "  %y = fusec.exp %s#1 : tensor<2x2xf32>",
        {2, 2}, "split axis 1, first piece unused");
}

TEST_F(AutodiffTest, Slice) {
  check({{"x", {5, 6}, uniform({5, 6}, -2, 2)}},
        "  %y = fusec.slice %x [1, 2] [3, 3] [1, 1] : tensor<5x6xf32> -> "
        "tensor<3x3xf32>",
        {3, 3}, "slice stride 1");
  check({{"x", {7, 8}, uniform({7, 8}, -2, 2)}},
        "  %y = fusec.slice %x [1, 0] [3, 3] [2, 3] : tensor<7x8xf32> -> "
        "tensor<3x3xf32>",
        {3, 3}, "slice strides 2, 3");
  check({{"x", {10}, uniform({10}, -2, 2)}},
        "  %y = fusec.slice %x [2] [3] [3] : tensor<10xf32> -> tensor<3xf32>",
        {3}, "slice stride 3 ending at the last element but one");
  check({{"x", {9}, uniform({9}, -2, 2)}},
        "  %y = fusec.slice %x [0] [3] [4] : tensor<9xf32> -> tensor<3xf32>",
        {3}, "slice stride 4 ending at the last element");
  check({{"x", {2, 7, 3}, uniform({2, 7, 3}, -2, 2)}},
        "  %e = fusec.exp %x : tensor<2x7x3xf32>\n"
        "  %y = fusec.slice %e [1, 1, 1] [1, 2, 2] [1, 3, 1] : "
        "tensor<2x7x3xf32> -> tensor<1x2x2xf32>",
        {1, 2, 2}, "slice rank 3, stride in the middle");
  check({{"x", {4, 5}, uniform({4, 5}, -2, 2)}},
        "  %y = fusec.slice %x [3, 1] [1, 2] [5, 2] : tensor<4x5xf32> -> "
        "tensor<1x2xf32>",
        {1, 2}, "slice of one row with a large stride");
}

TEST_F(AutodiffTest, Pad) {
  check({{"x", {3, 4}, uniform({3, 4}, -2, 2)}},
        "  %y = fusec.pad %x low = [1, 0] high = [2, 3] value = 1.5 : "
        "tensor<3x4xf32> -> tensor<6x7xf32>",
        {6, 7}, "pad constant");
  check({{"x", {3, 2}, uniform({3, 2}, -2, 2)}},
        "  %e = fusec.exp %x : tensor<3x2xf32>\n"
        "  %y = fusec.pad %e low = [0, 2] high = [1, 0] interior = [2, 1] : "
        "tensor<3x2xf32> -> tensor<8x5xf32>",
        {8, 5}, "pad interior");
}

// Repeated, negative and out-of-range (clamped) indices: each row sums the
// gradients of every place that read it.
TEST_F(AutodiffTest, Gather) {
  check({{"x", {5, 3}, uniform({5, 3}, -2, 2)}},
        "  %i = fusec.constant dense<[[4, -1], [0, 9], [2, 2]]> : "
        "tensor<3x2xi64>\n"
        "  %y = fusec.gather %x, %i axis = 0 : (tensor<5x3xf32>, "
        "tensor<3x2xi64>) -> tensor<3x2x3xf32>",
        {3, 2, 3}, "gather rows");
  check({{"x", {2, 4, 3}, uniform({2, 4, 3}, -2, 2)}},
        "  %i = fusec.constant dense<[3, 1, 3]> : tensor<3xi32>\n"
        "  %y = fusec.gather %x, %i axis = 1 : (tensor<2x4x3xf32>, "
        "tensor<3xi32>) -> tensor<2x3x3xf32>",
        {2, 3, 3}, "gather along a middle axis");
}

TEST_F(AutodiffTest, Patches) {
  check({{"x", {1, 7, 6, 2}, uniform({1, 7, 6, 2}, -2, 2)}},
        "  %y = fusec.patches %x window = [3, 2] strides = [2, 1] dilations = "
        "[1, 2] : tensor<1x7x6x2xf32> -> tensor<1x3x4x3x2x2xf32>",
        {1, 3, 4, 3, 2, 2}, "patches strided, dilated");
  check({{"x", {2, 4, 4, 1}, uniform({2, 4, 4, 1}, -2, 2)}},
        "  %y = fusec.patches %x window = [2, 2] strides = [2, 2] dilations = "
        "[1, 1] : tensor<2x4x4x1xf32> -> tensor<2x2x2x2x2x1xf32>",
        {2, 2, 2, 2, 2, 1}, "patches tiling the input");
}

// Convolutions and pooling as fusec's pipeline differentiates them:
// lowered to pad, patches, matmuls and reductions first.
TEST_F(AutodiffTest, ConvolutionAndPooling) {
  check({{"x", {1, 5, 5, 2}, uniform({1, 5, 5, 2}, -1, 1)},
         {"w", {3, 3, 2, 3}, uniform({3, 3, 2, 3}, -1, 1)},
         {"b", {3}, uniform({3}, -1, 1)}},
        "  %y = fusec.conv2d %x, %w, %b strides = [2, 2] dilations = [1, 1] "
        "padding = [1, 1, 0, 1] : (tensor<1x5x5x2xf32>, tensor<3x3x2x3xf32>, "
        "tensor<3xf32>) -> tensor<1x3x2x3xf32>",
        {1, 3, 2, 3}, "conv2d strided, padded, bias", true);
  check({{"x", {1, 5, 5, 4}, uniform({1, 5, 5, 4}, -1, 1)},
         {"w", {2, 2, 2, 4}, uniform({2, 2, 2, 4}, -1, 1)}},
        "  %y = fusec.conv2d %x, %w strides = [1, 1] dilations = [2, 2] "
        "padding = [0, 0, 0, 0] groups = 2 : (tensor<1x5x5x4xf32>, "
        "tensor<2x2x2x4xf32>) -> tensor<1x3x3x4xf32>",
        {1, 3, 3, 4}, "conv2d grouped, dilated", true);
  check({{"x", {1, 4, 4, 3}, uniform({1, 4, 4, 3}, -1, 1)},
         {"w", {3, 3, 1, 6}, uniform({3, 3, 1, 6}, -1, 1)},
         {"b", {6}, uniform({6}, -1, 1)}},
        "  %y = fusec.conv2d %x, %w, %b strides = [1, 1] dilations = [1, 1] "
        "padding = [1, 1, 1, 1] groups = 3 : (tensor<1x4x4x3xf32>, "
        "tensor<3x3x1x6xf32>, tensor<6xf32>) -> tensor<1x4x4x6xf32>",
        {1, 4, 4, 6}, "conv2d depthwise, multiplier 2", true);
  // Distinct values: no ties within a finite-difference step.
  check({{"x", {1, 5, 4, 2}, distinct({1, 5, 4, 2}, -4.0)}},
        "  %y = fusec.max_pool2d %x window = [2, 2] strides = [2, 1] "
        "dilations = [1, 1] padding = [1, 0, 0, 1] : tensor<1x5x4x2xf32> -> "
        "tensor<1x3x4x2xf32>",
        {1, 3, 4, 2}, "max_pool2d", true);
  for (const char *include : {"", " count_include_pad"})
    check({{"x", {1, 4, 4, 2}, uniform({1, 4, 4, 2}, -1, 1)}},
          std::string("  %y = fusec.avg_pool2d %x window = [3, 3] strides = "
                      "[1, 1] dilations = [1, 1] padding = [1, 1, 1, 1]") +
              include + " : tensor<1x4x4x2xf32> -> tensor<1x4x4x2xf32>",
          {1, 4, 4, 2}, std::string("avg_pool2d") + include, true);
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_F(AutodiffTest, Reductions) {
  Shape s{2, 3, 4};
  std::string t = tensorType(s);
  for (std::string op :
       {"fusec.reduce_sum", "fusec.reduce_mean", "fusec.reduce_max",
        "fusec.reduce_min", "fusec.reduce_prod"}) {
    std::vector<float> x = distinct(s, -3.0);
    check({{"x", s, x}},
          "  %y = " + op + " %x axes = [1] : " + t + " -> tensor<2x4xf32>",
          {2, 4}, op + " axes [1]");
    check({{"x", s, x}},
          "  %y = " + op + " %x axes = [0, 2] keep_dims : " + t +
              " -> tensor<1x3x1xf32>",
          {1, 3, 1}, op + " axes [0, 2] keep_dims");
    check({{"x", s, x}},
          "  %y = " + op + " %x axes = [0, 1, 2] : " + t + " -> tensor<f32>",
          {}, op + " over everything");
  }
}

/// Ties share the gradient of reduce_max/reduce_min equally.
TEST_F(AutodiffTest, ReduceTies) {
  auto module = parse(R"mlir(
func.func @loss(%x: tensor<2x4xf32> {fusec.param}, %r: tensor<2xf32>) -> tensor<f32> {
  %m = fusec.reduce_max %x axes = [1] : tensor<2x4xf32> -> tensor<2xf32>
  %n = fusec.reduce_min %x axes = [1] keep_dims : tensor<2x4xf32> -> tensor<2x1xf32>
  %n1 = fusec.reshape %n : tensor<2x1xf32> -> tensor<2xf32>
  %s = fusec.add %m, %n1 : tensor<2xf32>
  %p = fusec.mul %s, %r : tensor<2xf32>
  %l = fusec.reduce_sum %p axes = [0] : tensor<2xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  // Row 0 [1, 3, 3, 2]: max 3 twice (r0 / 2 each), min 1 once (r0).
  // Row 1 [5, 5, 5, 5]: max and min are all four (r1 / 4 + r1 / 4 each).
  auto r = run(
      grad, {makeF32({2, 4}, {1, 3, 3, 2, 5, 5, 5, 5}), makeF32({2}, {3, 8})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[1], {3, 1.5, 1.5, 0, 4, 4, 4, 4}, "d/dx");
}

/// reduce_prod: the product of the other elements, also where the row has
/// zeros (where prod / x would divide by zero).
TEST_F(AutodiffTest, ReduceProdZeros) {
  auto module = parse(R"mlir(
func.func @loss(%x: tensor<3x4xf32> {fusec.param}, %r: tensor<3xf32>) -> tensor<f32> {
  %p = fusec.reduce_prod %x axes = [1] : tensor<3x4xf32> -> tensor<3xf32>
  %q = fusec.mul %p, %r : tensor<3xf32>
  %l = fusec.reduce_sum %q axes = [0] : tensor<3xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  // Row 0 [2, 0, 3, 4]: only the zero has nonzero others (2*3*4 = 24).
  // Row 1 [0, 5, 0, 1]: two zeros, every product of others is 0.
  // Row 2 [1, 2, 3, 4]: 24 / x.
  auto r = run(grad, {makeF32({3, 4}, {2, 0, 3, 4, 0, 5, 0, 1, 1, 2, 3, 4}),
                      makeF32({3}, {3, 8, 0.5})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[1], {0, 72, 0, 0, 0, 0, 0, 0, 12, 6, 4, 3}, "d/dx");
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

TEST_F(AutodiffTest, Matmul) {
  check({{"a", {4, 3}, uniform({4, 3}, -1, 1)},
         {"b", {3, 5}, uniform({3, 5}, -1, 1)}},
        "  %y = fusec.matmul %a, %b : tensor<4x3xf32>, tensor<3x5xf32> -> "
        "tensor<4x5xf32>",
        {4, 5}, "matmul 2D");
  check({{"a", {2, 4, 3}, uniform({2, 4, 3}, -1, 1)},
         {"b", {3, 5}, uniform({3, 5}, -1, 1)}},
        "  %y = fusec.matmul %a, %b : tensor<2x4x3xf32>, tensor<3x5xf32> -> "
        "tensor<2x4x5xf32>",
        {2, 4, 5}, "matmul batched lhs, 2D rhs");
  check({{"a", {4, 3}, uniform({4, 3}, -1, 1)},
         {"b", {2, 3, 5}, uniform({2, 3, 5}, -1, 1)}},
        "  %y = fusec.matmul %a, %b : tensor<4x3xf32>, tensor<2x3x5xf32> -> "
        "tensor<2x4x5xf32>",
        {2, 4, 5}, "matmul 2D lhs, batched rhs");
  check({{"a", {2, 1, 4, 3}, uniform({2, 1, 4, 3}, -1, 1)},
         {"b", {3, 3, 2}, uniform({3, 3, 2}, -1, 1)}},
        "  %y = fusec.matmul %a, %b : tensor<2x1x4x3xf32>, tensor<3x3x2xf32> "
        "-> tensor<2x3x4x2xf32>",
        {2, 3, 4, 2}, "matmul with broadcast batch");
}

//===----------------------------------------------------------------------===//
// Whole functions
//===----------------------------------------------------------------------===//

const char *const kMlp = R"mlir(
func.func @loss(%x: tensor<8x4xf32>, %w1: tensor<4x5xf32> {fusec.param},
                %b1: tensor<5xf32> {fusec.param}, %w2: tensor<5x3xf32> {fusec.param},
                %b2: tensor<3xf32> {fusec.param}, %t: tensor<8x3xf32>) -> tensor<f32> {
  %0 = fusec.matmul %x, %w1 : tensor<8x4xf32>, tensor<4x5xf32> -> tensor<8x5xf32>
  %1 = fusec.add %0, %b1 : tensor<8x5xf32>, tensor<5xf32>
  %2 = fusec.tanh %1 : tensor<8x5xf32>
  %3 = fusec.matmul %2, %w2 : tensor<8x5xf32>, tensor<5x3xf32> -> tensor<8x3xf32>
  %4 = fusec.add %3, %b2 : tensor<8x3xf32>, tensor<3xf32>
  %5 = fusec.sub %4, %t : tensor<8x3xf32>
  %6 = fusec.mul %5, %5 : tensor<8x3xf32>
  %7 = fusec.reduce_mean %6 axes = [0, 1] : tensor<8x3xf32> -> tensor<f32>
  return %7 : tensor<f32>
}
)mlir";

TEST_F(AutodiffTest, TwoLayerMlp) {
  std::vector<Arg> args = {{"x", {8, 4}, uniform({8, 4}, -1, 1), false},
                           {"w1", {4, 5}, uniform({4, 5}, -0.8, 0.8)},
                           {"b1", {5}, uniform({5}, -0.5, 0.5)},
                           {"w2", {5, 3}, uniform({5, 3}, -0.8, 0.8)},
                           {"b2", {3}, uniform({3}, -0.5, 0.5)},
                           {"t", {8, 3}, uniform({8, 3}, -1, 1), false}};
  checkAgainstFiniteDifferences(kMlp, args, "mlp");
}

/// A seed scales every gradient: by 8 (a power of two) exactly.
TEST_F(AutodiffTest, SeedArgument) {
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(kMlp);
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss", /*seed=*/true);
  ASSERT_TRUE(grad);
  ASSERT_EQ(grad.getNumArguments(), 7u);
  EXPECT_EQ(grad.getArgumentTypes().back(),
            grad.getResultTypes().front()); // the loss's type
  EXPECT_TRUE(grad.getArgAttr(1, kParamAttrName));
  EXPECT_FALSE(grad.getArgAttr(0, kParamAttrName));
  EXPECT_FALSE(grad.getArgAttr(6, kParamAttrName));
  std::vector<Buffer> args = {makeF32({8, 4}, uniform({8, 4}, -1, 1)),
                              makeF32({4, 5}, uniform({4, 5}, -0.8, 0.8)),
                              makeF32({5}, uniform({5}, -0.5, 0.5)),
                              makeF32({5, 3}, uniform({5, 3}, -0.8, 0.8)),
                              makeF32({3}, uniform({3}, -0.5, 0.5)),
                              makeF32({8, 3}, uniform({8, 3}, -1, 1))};
  std::vector<Buffer> one = args, eight = args;
  one.push_back(makeF32({}, {1}));
  eight.push_back(makeF32({}, {8}));
  auto r1 = run(grad, one), r8 = run(grad, eight);
  ASSERT_EQ(r1.size(), 5u) << allDiagnostics();
  ASSERT_EQ(r8.size(), 5u) << allDiagnostics();
  EXPECT_TRUE(sameFloat(valueAt(r8[0], 0), valueAt(r1[0], 0))); // the loss
  for (size_t i = 1; i < 5; ++i) {
    std::vector<double> scaled = values(r1[i]);
    for (double &v : scaled)
      v *= 8;
    expectExact(r8[i], scaled, "gradient " + std::to_string(i));
  }
  // Without a seed argument the seed is 1.
  mlir::OwningOpRef<mlir::ModuleOp> plain = parse(kMlp);
  mlir::func::FuncOp unseeded = gradientOf(*plain, "loss");
  ASSERT_TRUE(unseeded);
  auto r = run(unseeded, args);
  ASSERT_EQ(r.size(), 5u) << allDiagnostics();
  for (size_t i = 0; i < 5; ++i)
    expectSameBuffer(r[i], r1[i], "result " + std::to_string(i));
}

/// A parameter the loss does not depend on gets exactly zero, of its type;
/// other results and the data's gradient are not computed.
TEST_F(AutodiffTest, UnusedParameterIsZero) {
  auto module = parse(R"mlir(
func.func @loss(%u: tensor<2x3xf32> {fusec.param}, %w: tensor<3xf32> {fusec.param}, %x: tensor<3xf32>)
    -> (tensor<1x1xf32>, tensor<2x3xf32>) {
  %0 = fusec.mul %w, %x : tensor<3xf32>
  %1 = fusec.reduce_sum %0 axes = [0] keep_dims : tensor<3xf32> -> tensor<1xf32>
  %2 = fusec.reshape %1 : tensor<1xf32> -> tensor<1x1xf32>
  %3 = fusec.exp %u : tensor<2x3xf32>
  return %2, %3 : tensor<1x1xf32>, tensor<2x3xf32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  ASSERT_EQ(grad.getNumResults(), 3u);
  EXPECT_EQ(
      grad.getResultTypes()[0],
      mlir::RankedTensorType::get({1, 1}, mlir::Float32Type::get(&context)));
  EXPECT_EQ(grad.getResultTypes()[1], grad.getArgumentTypes()[0]);
  EXPECT_EQ(grad.getResultTypes()[2], grad.getArgumentTypes()[1]);
  // The unrelated exp is not cloned.
  int exps = 0;
  grad.walk([&](ExpOp) { ++exps; });
  EXPECT_EQ(exps, 0);
  auto r = run(grad, {makeF32({2, 3}, {1, 2, 3, 4, 5, 6}),
                      makeF32({3}, {1, 2, 3}), makeF32({3}, {4, -5, 6})});
  ASSERT_EQ(r.size(), 3u) << allDiagnostics();
  EXPECT_EQ(r[0].shape(), (Shape{1, 1}));
  expectExact(r[0], {4 - 10 + 18}, "loss");
  expectExact(r[1], {0, 0, 0, 0, 0, 0}, "d/du");
  expectExact(r[2], {4, -5, 6}, "d/dw = x");
}

/// Adjoints of a value with several uses add up.
TEST_F(AutodiffTest, SeveralUsesAccumulate) {
  auto module = parse(R"mlir(
func.func @loss(%x: tensor<3xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.mul %x, %x : tensor<3xf32>
  %1 = fusec.add %0, %x : tensor<3xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<3xf32> -> tensor<f32>
  %3 = fusec.mul %2, %2 : tensor<f32>
  return %3 : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  // s = sum(x^2 + x) = (1 + 1) + (4 - 2) + (0.25 + 0.5) = 4.75, loss = s^2;
  // d/dx = 2 s (2x + 1) = 9.5 * [3, -3, 2].
  auto r = run(grad, {makeF32({3}, {1, -2, 0.5})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[0], {4.75 * 4.75}, "loss");
  expectExact(r[1], {28.5, -28.5, 19}, "d/dx");
}

/// The loss may be the parameter itself, and integer paths carry nothing.
TEST_F(AutodiffTest, TrivialAndIntegerPaths) {
  auto module = parse(R"mlir(
func.func @id(%w: tensor<f32> {fusec.param}) -> tensor<f32> {
  return %w : tensor<f32>
}
func.func @loss(%w: tensor<4xf32> {fusec.param}) -> tensor<f32> {
  %z = fusec.constant dense<0.0> : tensor<f32>
  %m = fusec.compare gt, %w, %z : tensor<4xf32>, tensor<f32>
  %c = fusec.cast %m : tensor<4xi1> to tensor<4xf32>
  %p = fusec.mul %c, %w : tensor<4xf32>
  %l = fusec.reduce_sum %p axes = [0] : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp id = gradientOf(*module, "id");
  ASSERT_TRUE(id);
  auto r = run(id, {makeF32({}, {2.5})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[0], {2.5}, "loss");
  expectExact(r[1], {1}, "d/dw");
  // sum(relu-like step(w) * w): d/dw = step(w) (the step's own gradient 0).
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  r = run(grad, {makeF32({4}, {-1, 2, 0.5, -3})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[1], {0, 1, 1, 0}, "d/dw");
}

//===----------------------------------------------------------------------===//
// isLossFunction and errors
//===----------------------------------------------------------------------===//

TEST_F(AutodiffTest, IsLossFunction) {
  auto module = parse(R"mlir(
func.func @yes(%w: tensor<2xf32> {fusec.param}) -> (tensor<1x1xf16>, tensor<2xf32>) {
  %0 = fusec.reduce_sum %w axes = [0] keep_dims : tensor<2xf32> -> tensor<1xf32>
  %1 = fusec.reshape %0 : tensor<1xf32> -> tensor<1x1xf32>
  %2 = fusec.cast %1 : tensor<1x1xf32> to tensor<1x1xf16>
  return %2, %w : tensor<1x1xf16>, tensor<2xf32>
}
func.func @no_param(%w: tensor<f32>) -> tensor<f32> {
  return %w : tensor<f32>
}
func.func @not_one_element(%w: tensor<2xf32> {fusec.param}) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}
func.func @integer(%w: tensor<f32> {fusec.param}) -> tensor<i32> {
  %0 = fusec.cast %w : tensor<f32> to tensor<i32>
  return %0 : tensor<i32>
}
func.func @no_result(%w: tensor<f32> {fusec.param}) {
  return
}
func.func private @declaration(%w: tensor<f32> {fusec.param}) -> tensor<f32>
)mlir");
  ASSERT_TRUE(module);
  auto is = [&](const char *name) {
    return isLossFunction(module->lookupSymbol<mlir::func::FuncOp>(name));
  };
  EXPECT_TRUE(is("yes"));
  EXPECT_FALSE(is("no_param"));
  EXPECT_FALSE(is("not_one_element"));
  EXPECT_FALSE(is("integer"));
  EXPECT_FALSE(is("no_result"));
  EXPECT_FALSE(is("declaration"));
  // An f16 loss: its gradient computation is in f16, the result types are
  // the loss's and the parameter's.
  mlir::func::FuncOp grad = gradientOf(*module, "yes");
  ASSERT_TRUE(grad);
  auto r = run(grad, {makeF32({2}, {1, 2})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  EXPECT_EQ(r[0].dtype(), DType::F16);
  expectExact(r[0], {3}, "loss");
  expectExact(r[1], {1, 1}, "d/dw");
}

TEST_F(AutodiffTest, Errors) {
  expectFailure(
      R"mlir(
func.func @loss(%w: tensor<2xf32> {fusec.param}) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}
)mlir",
      "first result (the loss) must be a float tensor of one element");
  expectFailure(R"mlir(
func.func @loss(%w: tensor<2xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.cast %w : tensor<2xf32> to tensor<2xi32>
  %1 = fusec.cast %0 : tensor<2xi32> to tensor<2xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %2 : tensor<f32>
}
)mlir",
                "'fusec.cast' from f32 to i32 is not differentiable");
  expectFailure(R"mlir(
func.func private @f(%w: tensor<2xf32>) -> tensor<f32> {
  %0 = fusec.reduce_sum %w axes = [0] : tensor<2xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @loss(%w: tensor<2xf32> {fusec.param}) -> tensor<f32> {
  %0 = func.call @f(%w) : (tensor<2xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
)mlir",
                "cannot differentiate through 'func.call'");
  expectFailure(R"mlir(
func.func @loss(%w: tensor<2xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.reduce_sum %w axes = [0] : tensor<2xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @loss_grad() {
  return
}
)mlir",
                "the name is taken");
  expectFailure(R"mlir(
func.func @loss(%w: tensor<3xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.pad %w low = [2] high = [1] mode = reflect : tensor<3xf32> -> tensor<6xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<6xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
)mlir",
                "cannot differentiate through 'fusec.pad': it depends on a "
                "'fusec.param' argument and its result reaches the loss "
                "(padding in mode reflect has no derivative rule; only mode "
                "constant does)");
  expectFailure(R"mlir(
func.func @loss(%w: tensor<1x4x4x1xf32> {fusec.param}) -> tensor<f32> {
  %0 = fusec.max_pool2d %w window = [2, 2] strides = [2, 2] dilations = [1, 1] padding = [0, 0, 0, 0] : tensor<1x4x4x1xf32> -> tensor<1x2x2x1xf32>
  %1 = fusec.reduce_sum %0 axes = [0, 1, 2, 3] : tensor<1x2x2x1xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
)mlir",
                "(lower it first: fusec-lower-windows)");
}

/// Calls and integer casts off the path to the loss are fine.
TEST_F(AutodiffTest, NonDifferentiableOffThePath) {
  auto module = parse(R"mlir(
func.func private @f(%w: tensor<2xf32>) -> tensor<2xf32> {
  return %w : tensor<2xf32>
}
func.func @loss(%w: tensor<2xf32> {fusec.param}, %x: tensor<2xf32>) -> (tensor<f32>, tensor<2xi32>) {
  %0 = func.call @f(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = fusec.mul %0, %w : tensor<2xf32>
  %2 = fusec.reduce_sum %1 axes = [0] : tensor<2xf32> -> tensor<f32>
  %3 = fusec.cast %w : tensor<2xf32> to tensor<2xi32>
  return %2, %3 : tensor<f32>, tensor<2xi32>
}
)mlir");
  ASSERT_TRUE(module);
  mlir::func::FuncOp grad = gradientOf(*module, "loss");
  ASSERT_TRUE(grad);
  auto r = run(grad, {makeF32({2}, {1, 2}), makeF32({2}, {3, -4})});
  ASSERT_EQ(r.size(), 2u) << allDiagnostics();
  expectExact(r[1], {3, -4}, "d/dw");
}

} // namespace
