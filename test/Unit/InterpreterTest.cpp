//===- InterpreterTest.cpp - Tests of the reference interpreter -----------===//
//
// Small modules parsed from strings and run with fusec::Interpreter: one test
// per kind of operation that its mapping onto the kernels is right, the error
// paths (with the diagnostics captured), and constant folding against
// interpretation. Expected values are by hand or from NumPy / Python's math
// module (the expression is given next to them).
//
//===----------------------------------------------------------------------===//

#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/InitAll.h"

#include "TestUtil.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::test;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

class InterpreterTest : public ::testing::Test {
protected:
  InterpreterTest() {
    mlir::DialectRegistry registry;
    fusec::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(const std::string &source) {
    mlir::OwningOpRef<mlir::ModuleOp> module =
        mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module) << "failed to parse:\n" << source;
    return module;
  }

  /// Runs function `name` of `module`, collecting diagnostics.
  mlir::FailureOr<llvm::SmallVector<Buffer>>
  run(mlir::ModuleOp module, llvm::StringRef name, std::vector<Buffer> args,
      InterpreterOptions options = {}) {
    auto func = module.lookupSymbol<mlir::func::FuncOp>(name);
    EXPECT_TRUE(func) << "no function " << name.str();
    if (!func)
      return mlir::failure();
    mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
      diagnostics.push_back(d.str());
      return mlir::success();
    });
    Interpreter interpreter(options);
    return interpreter.run(func, args);
  }

  /// Parses `source` and runs @main, expecting success.
  llvm::SmallVector<Buffer> runMain(const std::string &source,
                                    std::vector<Buffer> args = {}) {
    mlir::OwningOpRef<mlir::ModuleOp> module = parse(source);
    if (!module)
      return {};
    mlir::FailureOr<llvm::SmallVector<Buffer>> results =
        run(*module, "main", std::move(args));
    EXPECT_TRUE(mlir::succeeded(results)) << allDiagnostics();
    if (mlir::failed(results))
      return {};
    return *results;
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

  mlir::MLIRContext context;
  std::vector<std::string> diagnostics;
};

#define ASSERT_RESULTS(results, n)                                             \
  ASSERT_EQ((results).size(), size_t(n)) << allDiagnostics()

//===----------------------------------------------------------------------===//
// Operations
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, Constants) {
  auto r = runMain(R"mlir(
func.func @main() -> (tensor<2xf32>, tensor<2x3xf32>, tensor<f32>,
                      tensor<9xi1>, tensor<3xi1>, tensor<2xi32>, tensor<2xi64>,
                      tensor<2xf16>, tensor<2xbf16>, tensor<2xf32>,
                      tensor<2xf32>, tensor<3xi32>, tensor<0x3xf32>,
                      tensor<2xf16>) {
  %0 = fusec.constant dense<[1.0, -2.5]> : tensor<2xf32>
  %1 = fusec.constant dense<3.0> : tensor<2x3xf32>
  %2 = fusec.constant dense<-0.0> : tensor<f32>
  %3 = fusec.constant dense<[true, false, true, true, false, false, true, false, true]> : tensor<9xi1>
  %4 = fusec.constant dense<true> : tensor<3xi1>
  %5 = fusec.constant dense<[-1, 2147483647]> : tensor<2xi32>
  %6 = fusec.constant dense<[-9223372036854775808, 7]> : tensor<2xi64>
  %7 = fusec.constant dense<[1.0, 65504.0]> : tensor<2xf16>
  %8 = fusec.constant dense<[1.5, -2.0]> : tensor<2xbf16>
  %9 = fusec.constant dense<0x7FC00000> : tensor<2xf32>
  %10 = fusec.constant dense_resource<blob_f32> : tensor<2xf32>
  %11 = fusec.constant dense_resource<blob_i32> : tensor<3xi32>
  %12 = fusec.constant dense<> : tensor<0x3xf32>
  %13 = fusec.constant dense_resource<blob_f16> : tensor<2xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13
      : tensor<2xf32>, tensor<2x3xf32>, tensor<f32>, tensor<9xi1>,
        tensor<3xi1>, tensor<2xi32>, tensor<2xi64>, tensor<2xf16>,
        tensor<2xbf16>, tensor<2xf32>, tensor<2xf32>, tensor<3xi32>,
        tensor<0x3xf32>, tensor<2xf16>
}
{-#
  dialect_resources: {
    builtin: {
      blob_f32: "0x040000000000803F00000040",
      blob_i32: "0x04000000010000000200000003000000",
      blob_f16: "0x02000000003CFF7B"
    }
  }
#-}
)mlir");
  ASSERT_RESULTS(r, 14);
  expectExact(r[0], {1.0, -2.5}, "f32 list");
  EXPECT_EQ(r[1].shape(), (Shape{2, 3}));
  expectExact(r[1], {3, 3, 3, 3, 3, 3}, "f32 splat");
  EXPECT_EQ(r[2].shape(), Shape{});
  expectExact(r[2], {-0.0}, "f32 scalar -0");
  expectInts(r[3], {1, 0, 1, 1, 0, 0, 1, 0, 1}, "i1 list");
  expectInts(r[4], {1, 1, 1}, "i1 splat");
  expectInts(r[5], {-1, 2147483647}, "i32");
  expectInts(r[6], {std::numeric_limits<int64_t>::min(), 7}, "i64");
  expectBits16(r[7], {0x3c00, 0x7bff}, "f16");
  expectBits16(r[8], {0x3fc0, 0xc000}, "bf16");
  EXPECT_EQ(bitsOf(r[9].as<float>()[0]), 0x7fc00000u);
  EXPECT_EQ(bitsOf(r[9].as<float>()[1]), 0x7fc00000u);
  // Blobs: a 4-byte alignment prefix, then little-endian data:
  // 0x3f800000 = 1, 0x40000000 = 2; i32 1, 2, 3; f16 0x3c00, 0x7bff.
  expectExact(r[10], {1.0, 2.0}, "dense_resource f32");
  expectInts(r[11], {1, 2, 3}, "dense_resource i32");
  EXPECT_EQ(r[12].shape(), (Shape{0, 3}));
  expectBits16(r[13], {0x3c00, 0x7bff}, "dense_resource f16");
}

TEST_F(InterpreterTest, UnaryOps) {
  Buffer x = make(DType::F32, {6}, {-3.0, -1.5, -0.5, 0.25, 1.0, 2.5});
  Buffer p = make(DType::F32, {5}, {0.25, 1.0, 2.5, 3.0, 100.0});
  auto r = runMain(R"mlir(
func.func @main(%x: tensor<6xf32>, %p: tensor<5xf32>)
    -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
        tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<5xf32>,
        tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %0 = fusec.neg %x : tensor<6xf32>
  %1 = fusec.abs %x : tensor<6xf32>
  %2 = fusec.exp %x : tensor<6xf32>
  %3 = fusec.tanh %x : tensor<6xf32>
  %4 = fusec.sigmoid %x : tensor<6xf32>
  %5 = fusec.relu %x : tensor<6xf32>
  %6 = fusec.erf %x : tensor<6xf32>
  %7 = fusec.log %p : tensor<5xf32>
  %8 = fusec.sqrt %p : tensor<5xf32>
  %9 = fusec.rsqrt %p : tensor<5xf32>
  %10 = fusec.reciprocal %p : tensor<5xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10
      : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
        tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<5xf32>,
        tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
)mlir",
                   {x, p});
  ASSERT_RESULTS(r, 11);
  expectExact(r[0], {3.0, 1.5, 0.5, -0.25, -1.0, -2.5}, "neg");
  expectExact(r[1], {3.0, 1.5, 0.5, 0.25, 1.0, 2.5}, "abs");
  // np.exp, np.tanh, 1/(1+np.exp(-x)), math.erf in float64.
  expectClose(r[2],
              {0.04978706836786394, 0.22313016014842982, 0.6065306597126334,
               1.2840254166877414, 2.718281828459045, 12.182493960703473},
              "exp");
  expectClose(r[3],
              {-0.9950547536867305, -0.9051482536448665, -0.46211715726000974,
               0.24491866240370913, 0.7615941559557649, 0.9866142981514303},
              "tanh");
  expectClose(r[4],
              {0.04742587317756678, 0.18242552380635632, 0.3775406687981454,
               0.5621765008857981, 0.7310585786300049, 0.9241418199787566},
              "sigmoid");
  expectExact(r[5], {0.0, 0.0, 0.0, 0.25, 1.0, 2.5}, "relu");
  expectClose(r[6],
              {-0.9999779095030014, -0.9661051464753108, -0.5204998778130465,
               0.2763263901682369, 0.8427007929497149, 0.999593047982555},
              "erf");
  expectClose(r[7],
              {-1.3862943611198906, 0.0, 0.916290731874155, 1.0986122886681096,
               4.605170185988091},
              "log");
  expectClose(r[8], {0.5, 1.0, 1.5811388300841898, 1.7320508075688772, 10.0},
              "sqrt");
  expectClose(r[9], {2.0, 1.0, 0.6324555320336759, 0.5773502691896258, 0.1},
              "rsqrt");
  expectClose(r[10], {4.0, 1.0, 0.4, 0.3333333333333333, 0.01}, "reciprocal");
}

TEST_F(InterpreterTest, GeluApproximations) {
  Buffer x = make(DType::F32, {5}, {-3.0, -1.0, 0.5, 1.0, 2.0});
  auto r = runMain(R"mlir(
func.func @main(%x: tensor<5xf32>)
    -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %0 = fusec.gelu %x : tensor<5xf32>
  %1 = fusec.gelu %x approximate = none : tensor<5xf32>
  %2 = fusec.gelu %x approximate = tanh : tensor<5xf32>
  return %0, %1, %2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
)mlir",
                   {x});
  ASSERT_RESULTS(r, 3);
  // [0.5*x*(1+math.erf(x/math.sqrt(2))) for x in xs]
  std::vector<double> exact = {-0.00404969409489031, -0.15865525393145707,
                               0.34573123063700656, 0.8413447460685429,
                               1.9544997361036416};
  // [0.5*x*(1+math.tanh(math.sqrt(2/math.pi)*(x+0.044715*x**3))) ...]
  std::vector<double> approx = {-0.0036373920817729943, -0.15880800939172324,
                                0.34571400982514394, 0.8411919906082768,
                                1.954597694087775};
  expectClose(r[0], exact, "default");
  expectClose(r[1], exact, "none");
  expectClose(r[2], approx, "tanh");
  // The forms differ by 1.7e-5 (x = 0.5) to 4.1e-4 (x = -3) here.
  for (int i = 0; i < 5; ++i)
    EXPECT_GT(std::fabs(valueAt(r[1], i) - valueAt(r[2], i)), 1.5e-5) << i;
}

TEST_F(InterpreterTest, BinaryOps) {
  Buffer a = make(DType::F32, {2, 3}, {2, 3, 0.5, -8, 9, -1});
  Buffer b = make(DType::F32, {3}, {3, 0.5, 2});
  auto r = runMain(R"mlir(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = fusec.add %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = fusec.sub %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %2 = fusec.mul %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %3 = fusec.div %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %4 = fusec.max %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %5 = fusec.min %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %6 = fusec.pow %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %7 = fusec.sub %b, %a : tensor<3xf32>, tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7
      : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
)mlir",
                   {a, b});
  ASSERT_RESULTS(r, 8);
  // a = [[2, 3, .5], [-8, 9, -1]], b = [3, .5, 2] (broadcast over rows).
  expectExact(r[0], {5, 3.5, 2.5, -5, 9.5, 1}, "add");
  expectExact(r[1], {-1, 2.5, -1.5, -11, 8.5, -3}, "sub");
  expectExact(r[2], {6, 1.5, 1, -24, 4.5, -2}, "mul");
  // f32 division is correctly rounded: 2/3 and -8/3 rounded to f32.
  expectExact(r[3],
              {double(2.0f / 3.0f), 6, 0.25, double(-8.0f / 3.0f), 18, -0.5},
              "div");
  expectExact(r[4], {3, 3, 2, 3, 9, 2}, "max");
  expectExact(r[5], {2, 0.5, 0.5, -8, 0.5, -1}, "min");
  // 2^3 = 8, 3^.5 = 1.7320508..., .5^2 = .25, (-8)^3 = -512, 9^.5 = 3,
  // (-1)^2 = 1.
  expectClose(r[6], {8, 1.7320508075688772, 0.25, -512, 3, 1}, "pow");
  expectExact(r[7], {1, -2.5, 1.5, 11, -8.5, 3}, "sub reversed");
}

TEST_F(InterpreterTest, IntegerOps) {
  auto r = runMain(R"mlir(
func.func @main() -> (tensor<4xi32>, tensor<4xi32>, tensor<2xi64>) {
  %a = fusec.constant dense<[7, -7, -2147483648, 5]> : tensor<4xi32>
  %b = fusec.constant dense<[2, 2, -1, 0]> : tensor<4xi32>
  %0 = fusec.div %a, %b : tensor<4xi32>
  %1 = fusec.add %a, %a : tensor<4xi32>
  %c = fusec.constant dense<[9223372036854775807, 3]> : tensor<2xi64>
  %d = fusec.constant dense<1> : tensor<2xi64>
  %2 = fusec.add %c, %d : tensor<2xi64>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<2xi64>
}
)mlir");
  ASSERT_RESULTS(r, 3);
  expectInts(r[0], {3, -3, std::numeric_limits<int32_t>::min(), 0}, "div");
  // 7+7, -14, INT_MIN+INT_MIN wraps to 0, 10.
  expectInts(r[1], {14, -14, 0, 10}, "add");
  expectInts(r[2], {std::numeric_limits<int64_t>::min(), 4}, "i64 add");
}

TEST_F(InterpreterTest, ComparePredicates) {
  Buffer a = make(DType::F32, {4}, {1, 2, 3, kNaN});
  Buffer b = make(DType::F32, {}, {2});
  auto r = runMain(R"mlir(
func.func @main(%a: tensor<4xf32>, %b: tensor<f32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
        tensor<4xi1>, tensor<4xi1>) {
  %0 = fusec.compare eq, %a, %b : tensor<4xf32>, tensor<f32>
  %1 = fusec.compare ne, %a, %b : tensor<4xf32>, tensor<f32>
  %2 = fusec.compare lt, %a, %b : tensor<4xf32>, tensor<f32>
  %3 = fusec.compare le, %a, %b : tensor<4xf32>, tensor<f32>
  %4 = fusec.compare gt, %a, %b : tensor<4xf32>, tensor<f32>
  %5 = fusec.compare ge, %a, %b : tensor<4xf32>, tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>,
      tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
)mlir",
                   {a, b});
  ASSERT_RESULTS(r, 6);
  // [1, 2, 3, NaN] <pred> 2.
  expectInts(r[0], {0, 1, 0, 0}, "eq");
  expectInts(r[1], {1, 0, 1, 1}, "ne");
  expectInts(r[2], {1, 0, 0, 0}, "lt");
  expectInts(r[3], {1, 1, 0, 0}, "le");
  expectInts(r[4], {0, 0, 1, 0}, "gt");
  expectInts(r[5], {0, 1, 1, 0}, "ge");
  // Integers compare as signed.
  auto s = runMain(R"mlir(
func.func @main() -> tensor<2xi1> {
  %a = fusec.constant dense<[-1, 5]> : tensor<2xi32>
  %b = fusec.constant dense<[1, -5]> : tensor<2xi32>
  %0 = fusec.compare lt, %a, %b : tensor<2xi32>
  return %0 : tensor<2xi1>
}
)mlir");
  ASSERT_RESULTS(s, 1);
  expectInts(s[0], {1, 0}, "signed lt");
}

TEST_F(InterpreterTest, SelectAndCast) {
  Buffer c = make(DType::I1, {2, 1}, {1, 0});
  Buffer t = make(DType::F32, {3}, {1.5, 2.5, -3.5});
  auto r = runMain(R"mlir(
func.func @main(%c: tensor<2x1xi1>, %t: tensor<3xf32>)
    -> (tensor<2x3xf32>, tensor<3xi32>, tensor<3xf16>, tensor<3xi1>,
        tensor<2x1xf32>) {
  %f = fusec.constant dense<-0.0> : tensor<f32>
  %0 = fusec.select %c, %t, %f : tensor<2x1xi1>, tensor<3xf32>, tensor<f32>
  %1 = fusec.cast %t : tensor<3xf32> to tensor<3xi32>
  %2 = fusec.cast %t : tensor<3xf32> to tensor<3xf16>
  %3 = fusec.cast %1 : tensor<3xi32> to tensor<3xi1>
  %4 = fusec.cast %c : tensor<2x1xi1> to tensor<2x1xf32>
  return %0, %1, %2, %3, %4
      : tensor<2x3xf32>, tensor<3xi32>, tensor<3xf16>, tensor<3xi1>,
        tensor<2x1xf32>
}
)mlir",
                   {c, t});
  ASSERT_RESULTS(r, 5);
  EXPECT_EQ(r[0].shape(), (Shape{2, 3}));
  expectExact(r[0], {1.5, 2.5, -3.5, -0.0, -0.0, -0.0}, "select");
  // Ties to even: 1.5 -> 2, 2.5 -> 2, -3.5 -> -4.
  expectInts(r[1], {2, 2, -4}, "f32->i32");
  expectExact(r[2], {1.5, 2.5, -3.5}, "f32->f16");
  expectInts(r[3], {1, 1, 1}, "i32->i1");
  expectExact(r[4], {1, 0}, "i1->f32");
}

TEST_F(InterpreterTest, ReshapeAliasingKeepsValues) {
  Buffer x = make(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  auto r = runMain(R"mlir(
func.func @main(%x: tensor<2x3xf32>)
    -> (tensor<6xf32>, tensor<2x3xf32>, tensor<3x2xf32>, tensor<2x3xf32>,
        tensor<6xf32>) {
  %r = fusec.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %n = fusec.neg %r : tensor<6xf32>
  %b = fusec.reshape %n : tensor<6xf32> -> tensor<3x2xf32>
  %y = fusec.add %x, %x : tensor<2x3xf32>
  %z = fusec.reshape %b : tensor<3x2xf32> -> tensor<2x3xf32>
  %w = fusec.mul %z, %y : tensor<2x3xf32>
  %v = fusec.reshape %w : tensor<2x3xf32> -> tensor<6xf32>
  return %r, %y, %b, %w, %v : tensor<6xf32>, tensor<2x3xf32>,
      tensor<3x2xf32>, tensor<2x3xf32>, tensor<6xf32>
}
)mlir",
                   {x});
  ASSERT_RESULTS(r, 5);
  EXPECT_EQ(r[0].shape(), Shape{6});
  expectExact(r[0], {1, 2, 3, 4, 5, 6}, "reshape");
  expectExact(r[1], {2, 4, 6, 8, 10, 12}, "x + x");
  EXPECT_EQ(r[2].shape(), (Shape{3, 2}));
  expectExact(r[2], {-1, -2, -3, -4, -5, -6}, "neg reshaped");
  // -x * 2x = -2 x^2.
  expectExact(r[3], {-2, -8, -18, -32, -50, -72}, "product");
  EXPECT_EQ(r[4].shape(), Shape{6});
  expectExact(r[4], {-2, -8, -18, -32, -50, -72}, "product reshaped");
  // The argument itself is untouched.
  expectExact(x, {1, 2, 3, 4, 5, 6}, "argument");
}

TEST_F(InterpreterTest, TransposeAndBroadcastTo) {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i)
    v[i] = i;
  Buffer x = make(DType::I32, {2, 3, 4}, v);
  auto r = runMain(R"mlir(
func.func @main(%x: tensor<2x3x4xi32>)
    -> (tensor<4x2x3xi32>, tensor<3x2xf16>, tensor<2x3xf16>) {
  %0 = fusec.transpose %x, [2, 0, 1] : tensor<2x3x4xi32> -> tensor<4x2x3xi32>
  %m = fusec.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
  %1 = fusec.transpose %m, [1, 0] : tensor<2x3xf16> -> tensor<3x2xf16>
  %c = fusec.constant dense<[[7.0], [-0.0]]> : tensor<2x1xf16>
  %2 = fusec.broadcast_to %c : tensor<2x1xf16> -> tensor<2x3xf16>
  return %0, %1, %2 : tensor<4x2x3xi32>, tensor<3x2xf16>, tensor<2x3xf16>
}
)mlir",
                   {x});
  ASSERT_RESULTS(r, 3);
  // result[a][b][c] = x[b][c][a] = 12 b + 4 c + a.
  std::vector<int64_t> want;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 3; ++c)
        want.push_back(12 * b + 4 * c + a);
  expectInts(r[0], want, "transpose 3-D");
  expectExact(r[1], {1, 4, 2, 5, 3, 6}, "transpose 2-D");
  expectExact(r[2], {7, 7, 7, -0.0, -0.0, -0.0}, "broadcast_to");
}

TEST_F(InterpreterTest, ConcatSplitSlice) {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i)
    v[i] = i;
  Buffer x = make(DType::F32, {4, 6}, v);
  auto r = runMain(R"mlir(
func.func @main(%x: tensor<4x6xf32>)
    -> (tensor<1x6xf32>, tensor<0x6xf32>, tensor<3x6xf32>, tensor<4x2xf32>,
        tensor<4x4xf32>, tensor<2x2xf32>, tensor<4x9xf32>) {
  %a, %b, %c = fusec.split %x axis = 0 sizes = [1, 0, 3] : tensor<4x6xf32> -> tensor<1x6xf32>, tensor<0x6xf32>, tensor<3x6xf32>
  %d, %e = fusec.split %x axis = 1 sizes = [2, 4] : tensor<4x6xf32> -> tensor<4x2xf32>, tensor<4x4xf32>
  %s = fusec.slice %x [1, 0] [2, 2] [2, 3] : tensor<4x6xf32> -> tensor<2x2xf32>
  %z = fusec.constant dense<> : tensor<4x0xf32>
  %k = fusec.constant dense<[[-1.0], [-2.0], [-3.0], [-4.0]]> : tensor<4x1xf32>
  %cat = fusec.concat %e, %z, %k, %x axis = 1 : tensor<4x4xf32>, tensor<4x0xf32>, tensor<4x1xf32>, tensor<4x6xf32> -> tensor<4x11xf32>
  %cut = fusec.slice %cat [0, 2] [4, 9] [1, 1] : tensor<4x11xf32> -> tensor<4x9xf32>
  return %a, %b, %c, %d, %e, %s, %cut : tensor<1x6xf32>, tensor<0x6xf32>,
      tensor<3x6xf32>, tensor<4x2xf32>, tensor<4x4xf32>, tensor<2x2xf32>,
      tensor<4x9xf32>
}
)mlir",
                   {x});
  ASSERT_RESULTS(r, 7);
  // x = arange(24).reshape(4, 6).
  expectExact(r[0], {0, 1, 2, 3, 4, 5}, "split piece 0");
  EXPECT_EQ(r[1].shape(), (Shape{0, 6}));
  std::vector<double> rest(v.begin() + 6, v.end());
  expectExact(r[2], rest, "split piece 2");
  expectExact(r[3], {0, 1, 6, 7, 12, 13, 18, 19}, "split axis 1 piece 0");
  expectExact(r[4], {2, 3, 4, 5, 8, 9, 10, 11, 14, 15, 16, 17, 20, 21, 22, 23},
              "split axis 1 piece 1");
  // Rows 1, 3; columns 0, 3.
  expectExact(r[5], {6, 9, 18, 21}, "slice");
  // concat row i = [x[i][2..5], -(i+1), x[i][0..5]]; columns 2.. of that:
  // [x[i][4], x[i][5], -(i+1), x[i][0..5]].
  std::vector<double> want;
  for (int i = 0; i < 4; ++i) {
    want.push_back(6 * i + 4);
    want.push_back(6 * i + 5);
    want.push_back(-(i + 1));
    for (int j = 0; j < 6; ++j)
      want.push_back(6 * i + j);
  }
  expectExact(r[6], want, "concat then slice");
}

TEST_F(InterpreterTest, Reductions) {
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i)
    v[i] = i;
  Buffer x = make(DType::F32, {2, 3, 4}, v);
  auto r = runMain(R"mlir(
func.func @main(%x: tensor<2x3x4xf32>)
    -> (tensor<2x1x4xf32>, tensor<3xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>,
        tensor<f32>, tensor<2x3x4xf32>) {
  %0 = fusec.reduce_sum %x axes = [1] keep_dims : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %1 = fusec.reduce_max %x axes = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>
  %2 = fusec.reduce_min %x axes = [0, 2] keep_dims : tensor<2x3x4xf32> -> tensor<1x3x1xf32>
  %3 = fusec.reduce_mean %x axes = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>
  %4 = fusec.reduce_sum %x axes = [0, 1, 2] : tensor<2x3x4xf32> -> tensor<f32>
  %5 = fusec.reduce_sum %x axes = [] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x1x4xf32>, tensor<3xf32>,
      tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<f32>, tensor<2x3x4xf32>
}
)mlir",
                   {x});
  ASSERT_RESULTS(r, 6);
  // np.arange(24).reshape(2,3,4): .sum(1, keepdims=True), .max((0,2)),
  // .min((0,2), keepdims=True), .mean(2), .sum().
  EXPECT_EQ(r[0].shape(), (Shape{2, 1, 4}));
  expectExact(r[0], {12, 15, 18, 21, 48, 51, 54, 57}, "sum keep_dims");
  expectExact(r[1], {15, 19, 23}, "max");
  EXPECT_EQ(r[2].shape(), (Shape{1, 3, 1}));
  expectExact(r[2], {0, 4, 8}, "min keep_dims");
  expectExact(r[3], {1.5, 5.5, 9.5, 13.5, 17.5, 21.5}, "mean");
  expectExact(r[4], {276}, "sum all");
  expectExact(r[5], v, "sum over no axes");
  // f16: 4096 ones sum to 4096 (an f16 running sum would stop at 2048).
  auto s = runMain(R"mlir(
func.func @main() -> (tensor<f16>, tensor<2xf32>, tensor<2xf32>) {
  %ones = fusec.constant dense<1.0> : tensor<4096xf16>
  %0 = fusec.reduce_sum %ones axes = [0] : tensor<4096xf16> -> tensor<f16>
  %e = fusec.constant dense<> : tensor<2x0xf32>
  %1 = fusec.reduce_max %e axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
  %2 = fusec.reduce_mean %e axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
  return %0, %1, %2 : tensor<f16>, tensor<2xf32>, tensor<2xf32>
}
)mlir");
  ASSERT_RESULTS(s, 3);
  expectBits16(s[0], {0x6c00}, "f16 sum of 4096 ones");
  expectExact(s[1], {-kInf, -kInf}, "empty max");
  expectExact(s[2], {kNaN, kNaN}, "empty mean");
}

TEST_F(InterpreterTest, Matmul) {
  Buffer a =
      make(DType::F32, {2, 1, 2, 3}, {1, 2, 3, 4, 5, 6, -1, 0, 0, 0, 1, 0});
  Buffer b = make(DType::F32, {3, 3, 2},
                  {7, 8, 9, 10, 11, 12, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 1});
  auto r = runMain(R"mlir(
func.func @main(%a: tensor<2x1x2x3xf32>, %b: tensor<3x3x2xf32>)
    -> tensor<2x3x2x2xf32> {
  %0 = fusec.matmul %a, %b : tensor<2x1x2x3xf32>, tensor<3x3x2xf32> -> tensor<2x3x2x2xf32>
  return %0 : tensor<2x3x2x2xf32>
}
)mlir",
                   {a, b});
  ASSERT_RESULTS(r, 1);
  // a0 = [[1,2,3],[4,5,6]], a1 = [[-1,0,0],[0,1,0]];
  // b0 = [[7,8],[9,10],[11,12]], b1 = [[1,0],[0,1],[0,0]],
  // b2 = [[0,0],[0,0],[1,1]].
  // a0 b0 = [[58,64],[139,154]], a0 b1 = [[1,2],[4,5]], a0 b2 = [[3,3],[6,6]]
  // a1 b0 = [[-7,-8],[9,10]],    a1 b1 = [[-1,0],[0,1]], a1 b2 = [[0,0],[0,0]]
  expectExact(r[0], {58, 64, 139, 154, 1,  2, 4, 5, 3, 3, 6, 6,
                     -7, -8, 9,   10,  -1, 0, 0, 1, 0, 0, 0, 0},
              "batched matmul");
}

TEST_F(InterpreterTest, CallsAndMultipleResults) {
  Buffer x = make(DType::F32, {2}, {1.5, -2});
  auto r = runMain(R"mlir(
func.func private @pair(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = fusec.neg %a : tensor<2xf32>
  %1 = fusec.add %a, %a : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
func.func private @twice(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = func.call @pair(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %1 = fusec.mul %0#0, %0#1 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = func.call @twice(%x) : (tensor<2xf32>) -> tensor<2xf32>
  %1:2 = func.call @pair(%0) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %1#1, %x, %1#0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
)mlir",
                   {x});
  ASSERT_RESULTS(r, 3);
  // twice(x) = -x * 2x = -2x^2 = [-4.5, -8]; pair of that: neg [4.5, 8],
  // double [-9, -16].
  expectExact(r[0], {-9, -16}, "second result");
  expectExact(r[1], {1.5, -2}, "argument returned");
  expectExact(r[2], {4.5, 8}, "first result");
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

const char *kTwoArgs = R"mlir(
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = fusec.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
)mlir";

TEST_F(InterpreterTest, WrongArgumentCount) {
  auto module = parse(kTwoArgs);
  ASSERT_TRUE(module);
  Buffer a = alloc(DType::F32, {2, 3});
  EXPECT_TRUE(mlir::failed(run(*module, "main", {a})));
  EXPECT_TRUE(diagnosed("takes 2 argument(s) but 1 were given"))
      << allDiagnostics();
  diagnostics.clear();
  EXPECT_TRUE(mlir::failed(run(*module, "main", {a, a, a})));
  EXPECT_TRUE(diagnosed("takes 2 argument(s) but 3 were given"))
      << allDiagnostics();
}

TEST_F(InterpreterTest, WrongArgumentTypeOrShape) {
  auto module = parse(kTwoArgs);
  ASSERT_TRUE(module);
  Buffer good = alloc(DType::F32, {2, 3});
  EXPECT_TRUE(
      mlir::failed(run(*module, "main", {alloc(DType::I32, {2, 3}), good})));
  EXPECT_TRUE(diagnosed("argument #0")) << allDiagnostics();
  EXPECT_TRUE(diagnosed("expected f32 of shape 2x3, got i32 of shape 2x3"))
      << allDiagnostics();
  diagnostics.clear();
  EXPECT_TRUE(
      mlir::failed(run(*module, "main", {good, alloc(DType::F32, {3, 2})})));
  EXPECT_TRUE(diagnosed("argument #1")) << allDiagnostics();
  EXPECT_TRUE(diagnosed("expected f32 of shape 2x3, got f32 of shape 3x2"))
      << allDiagnostics();
  diagnostics.clear();
  EXPECT_TRUE(
      mlir::failed(run(*module, "main", {good, alloc(DType::F16, {})})));
  EXPECT_TRUE(diagnosed("argument #1")) << allDiagnostics();
  EXPECT_TRUE(diagnosed("got f16 of shape scalar")) << allDiagnostics();
}

TEST_F(InterpreterTest, MemoryLimitExceeded) {
  auto module = parse(R"mlir(
func.func @main(%a: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = fusec.exp %a : tensor<1000xf32>
  %1 = fusec.add %0, %a : tensor<1000xf32>
  return %1 : tensor<1000xf32>
}
)mlir");
  ASSERT_TRUE(module);
  InterpreterOptions options;
  options.memoryLimit = 1000; // bytes; one result needs 4000
  auto result = run(*module, "main", {alloc(DType::F32, {1000})}, options);
  EXPECT_TRUE(mlir::failed(result));
  EXPECT_TRUE(diagnosed("cannot allocate 4000 bytes for tensor<1000xf32>"))
      << allDiagnostics();
  EXPECT_TRUE(diagnosed("memory limit is 1000 bytes")) << allDiagnostics();
  // The same program within a sufficient limit runs.
  diagnostics.clear();
  options.memoryLimit = 1 << 20;
  EXPECT_TRUE(mlir::succeeded(
      run(*module, "main", {alloc(DType::F32, {1000})}, options)))
      << allDiagnostics();
}

TEST_F(InterpreterTest, MemoryLimitCountsOnlyLiveValues) {
  // A chain of 8 ops on 4000-byte tensors: each intermediate dies after its
  // single use, so at most two results (8000 bytes) are alive at once.
  auto module = parse(R"mlir(
func.func @main(%a: tensor<1000xf32>) -> tensor<1000xf32> {
  %0 = fusec.neg %a : tensor<1000xf32>
  %1 = fusec.neg %0 : tensor<1000xf32>
  %2 = fusec.neg %1 : tensor<1000xf32>
  %3 = fusec.neg %2 : tensor<1000xf32>
  %4 = fusec.neg %3 : tensor<1000xf32>
  %5 = fusec.neg %4 : tensor<1000xf32>
  %6 = fusec.neg %5 : tensor<1000xf32>
  %7 = fusec.neg %6 : tensor<1000xf32>
  return %7 : tensor<1000xf32>
}
)mlir");
  ASSERT_TRUE(module);
  InterpreterOptions options;
  options.memoryLimit = 8000;
  Buffer a = make(DType::F32, {1000}, std::vector<double>(1000, 2.0));
  auto result = run(*module, "main", {a}, options);
  ASSERT_TRUE(mlir::succeeded(result)) << allDiagnostics();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ(valueAt((*result)[0], 999), 2.0);
}

TEST_F(InterpreterTest, RecursionDepthExceeded) {
  auto module = parse(R"mlir(
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @main(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)mlir");
  ASSERT_TRUE(module);
  InterpreterOptions options;
  options.maxCallDepth = 5;
  EXPECT_TRUE(
      mlir::failed(run(*module, "main", {alloc(DType::F32, {2})}, options)));
  EXPECT_TRUE(diagnosed("call depth exceeds 5")) << allDiagnostics();
  // The default limit stops it too (no stack overflow).
  diagnostics.clear();
  EXPECT_TRUE(mlir::failed(run(*module, "main", {alloc(DType::F32, {2})})));
  EXPECT_TRUE(diagnosed("call depth exceeds 64")) << allDiagnostics();
}

TEST_F(InterpreterTest, ExternalFunction) {
  auto module = parse(R"mlir(
func.func private @ext(tensor<2xf32>) -> tensor<2xf32>
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = func.call @ext(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
)mlir");
  ASSERT_TRUE(module);
  EXPECT_TRUE(mlir::failed(run(*module, "ext", {alloc(DType::F32, {2})})));
  EXPECT_TRUE(diagnosed("cannot run 'ext': it has no body"))
      << allDiagnostics();
  diagnostics.clear();
  EXPECT_TRUE(mlir::failed(run(*module, "main", {alloc(DType::F32, {2})})));
  EXPECT_TRUE(diagnosed("cannot run 'ext': it has no body"))
      << allDiagnostics();
}

//===----------------------------------------------------------------------===//
// Constant folding agrees with interpretation
//===----------------------------------------------------------------------===//

/// Runs the canonicalizer on `module`.
bool canonicalize(mlir::MLIRContext &context, mlir::ModuleOp module) {
  mlir::PassManager pm(&context);
  pm.addPass(mlir::createCanonicalizerPass());
  return mlir::succeeded(pm.run(module));
}

/// Number of operations in @main other than fusec.constant and return.
int nonConstantOps(mlir::ModuleOp module) {
  int n = 0;
  module.lookupSymbol<mlir::func::FuncOp>("main").walk(
      [&](mlir::Operation *op) {
        if (!mlir::isa<ConstantOp, mlir::func::ReturnOp, mlir::func::FuncOp>(
                op))
          ++n;
      });
  return n;
}

void expectBitIdentical(llvm::ArrayRef<Buffer> folded,
                        llvm::ArrayRef<Buffer> interpreted,
                        const std::string &what) {
  ASSERT_EQ(folded.size(), interpreted.size()) << what;
  for (size_t i = 0; i < folded.size(); ++i)
    expectSameBuffer(folded[i], interpreted[i],
                     what + " result " + std::to_string(i));
}

TEST_F(InterpreterTest, ConstantFoldingMatchesInterpretation) {
  // Each function computes only from constants; canonicalization must fold
  // it to constants holding exactly what the interpreter computes.
  const char *cases[] = {
      // f16 arithmetic with rounding (2048 + 1 -> 2048, 2048 + 3 -> 2052),
      // overflow, division, NaN and -0 handling in max/min.
      R"mlir(func.func @main() -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %a = fusec.constant dense<[2048.0, 2048.0, 65504.0, -0.0]> : tensor<4xf16>
  %b = fusec.constant dense<[1.0, 3.0, 16.0, 0.0]> : tensor<4xf16>
  %0 = fusec.add %a, %b : tensor<4xf16>
  %1 = fusec.div %b, %a : tensor<4xf16>
  %2 = fusec.max %a, %b : tensor<4xf16>
  %3 = fusec.min %a, %b : tensor<4xf16>
  return %0, %1, %2, %3 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
})mlir",
      // Transcendentals in f16, bf16 and f32.
      R"mlir(func.func @main() -> (tensor<5xf16>, tensor<5xf16>, tensor<5xbf16>, tensor<5xf32>, tensor<5xf16>, tensor<5xbf16>) {
  %x = fusec.constant dense<[-3.0, -0.5, 0.0, 1.0, 12.0]> : tensor<5xf16>
  %y = fusec.constant dense<[-3.0, -0.5, 0.0, 1.0, 12.0]> : tensor<5xbf16>
  %z = fusec.constant dense<[-3.0, -0.5, 0.0, 1.0, 12.0]> : tensor<5xf32>
  %0 = fusec.exp %x : tensor<5xf16>
  %1 = fusec.gelu %x approximate = tanh : tensor<5xf16>
  %2 = fusec.gelu %y : tensor<5xbf16>
  %3 = fusec.sigmoid %z : tensor<5xf32>
  %4 = fusec.tanh %x : tensor<5xf16>
  %5 = fusec.rsqrt %y : tensor<5xbf16>
  return %0, %1, %2, %3, %4, %5 : tensor<5xf16>, tensor<5xf16>, tensor<5xbf16>, tensor<5xf32>, tensor<5xf16>, tensor<5xbf16>
})mlir",
      // Casts, including the integer -> bf16 double-rounding case and
      // float -> int ties and saturation.
      R"mlir(func.func @main() -> (tensor<4xf16>, tensor<3xbf16>, tensor<4xi32>, tensor<4xi1>, tensor<2xf32>) {
  %f = fusec.constant dense<[1.00048828125, 65520.0, 2.5, 0x7FC00000]> : tensor<4xf32>
  %i = fusec.constant dense<[1077936129, 1086324735, -7]> : tensor<3xi32>
  %l = fusec.constant dense<[1152921573326323713, -1]> : tensor<2xi64>
  %0 = fusec.cast %f : tensor<4xf32> to tensor<4xf16>
  %1 = fusec.cast %i : tensor<3xi32> to tensor<3xbf16>
  %2 = fusec.cast %f : tensor<4xf32> to tensor<4xi32>
  %3 = fusec.cast %f : tensor<4xf32> to tensor<4xi1>
  %4 = fusec.cast %l : tensor<2xi64> to tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf16>, tensor<3xbf16>, tensor<4xi32>, tensor<4xi1>, tensor<2xf32>
})mlir",
      // Reductions and matmul in f16/bf16 (f64 accumulation, one rounding).
      R"mlir(func.func @main() -> (tensor<f16>, tensor<2xbf16>, tensor<1x1xf16>, tensor<2x1xbf16>, tensor<3xf16>) {
  %ones = fusec.constant dense<1.0> : tensor<4096xf16>
  %0 = fusec.reduce_sum %ones axes = [0] : tensor<4096xf16> -> tensor<f16>
  %m = fusec.constant dense<[[1.0, 2.0, 3.5], [256.0, 1.0, 1.0]]> : tensor<2x3xbf16>
  %1 = fusec.reduce_mean %m axes = [1] : tensor<2x3xbf16> -> tensor<2xbf16>
  %a = fusec.constant dense<[[1.0, 1.0, 1.0]]> : tensor<1x3xf16>
  %b = fusec.constant dense<[[2048.0], [1.0], [1.0]]> : tensor<3x1xf16>
  %2 = fusec.matmul %a, %b : tensor<1x3xf16>, tensor<3x1xf16> -> tensor<1x1xf16>
  %c = fusec.constant dense<[[1.0], [1.0], [1.0]]> : tensor<3x1xbf16>
  %3 = fusec.matmul %m, %c : tensor<2x3xbf16>, tensor<3x1xbf16> -> tensor<2x1xbf16>
  %h = fusec.constant dense<[[1.0, 0x7E00, -0.0], [-2.0, 3.0, -0.0]]> : tensor<2x3xf16>
  %4 = fusec.reduce_max %h axes = [0] : tensor<2x3xf16> -> tensor<3xf16>
  return %0, %1, %2, %3, %4 : tensor<f16>, tensor<2xbf16>, tensor<1x1xf16>, tensor<2x1xbf16>, tensor<3xf16>
})mlir",
      // Compare, select and data movement, splats and broadcasting.
      R"mlir(func.func @main() -> (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3x2xi32>, tensor<2x2xi64>, tensor<1x3xf16>, tensor<2x3xf16>, tensor<4x3xbf16>, tensor<2x4xf32>) {
  %a = fusec.constant dense<[[1.0, 0x7FC00000, -0.0], [2.0, 3.0, 4.0]]> : tensor<2x3xf32>
  %b = fusec.constant dense<[2.0, 2.0, 0.0]> : tensor<3xf32>
  %0 = fusec.compare le, %a, %b : tensor<2x3xf32>, tensor<3xf32>
  %1 = fusec.select %0, %a, %b : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>
  %i = fusec.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %2 = fusec.transpose %i, [1, 0] : tensor<2x3xi32> -> tensor<3x2xi32>
  %l = fusec.constant dense<[[1, 2, 3], [4, 5, 6], [7, 8, 9]]> : tensor<3x3xi64>
  %3 = fusec.slice %l [0, 0] [2, 2] [2, 2] : tensor<3x3xi64> -> tensor<2x2xi64>
  %h = fusec.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf16>
  %4, %5 = fusec.split %h axis = 0 sizes = [1, 1] : tensor<2x3xf16> -> tensor<1x3xf16>, tensor<1x3xf16>
  %6 = fusec.concat %5, %4 axis = 0 : tensor<1x3xf16>, tensor<1x3xf16> -> tensor<2x3xf16>
  %s = fusec.constant dense<1.5> : tensor<1x3xbf16>
  %t = fusec.constant dense<[[2.0], [3.0], [4.0], [5.0]]> : tensor<4x1xbf16>
  %7 = fusec.mul %s, %t : tensor<1x3xbf16>, tensor<4x1xbf16>
  %u = fusec.constant dense<-0.0> : tensor<2x1xf32>
  %v = fusec.constant dense<0.0> : tensor<4xf32>
  %8 = fusec.add %u, %v : tensor<2x1xf32>, tensor<4xf32>
  return %0, %1, %2, %3, %4, %6, %7, %8 : tensor<2x3xi1>, tensor<2x3xf32>, tensor<3x2xi32>, tensor<2x2xi64>, tensor<1x3xf16>, tensor<2x3xf16>, tensor<4x3xbf16>, tensor<2x4xf32>
})mlir",
      // Splat operands on every elementwise op (folded on one element).
      R"mlir(func.func @main() -> (tensor<2x2xf16>, tensor<3xbf16>, tensor<2xi1>, tensor<2xf16>, tensor<2x3xf16>, tensor<2xi32>) {
  %a = fusec.constant dense<2049.0> : tensor<2x2xf32>
  %0 = fusec.cast %a : tensor<2x2xf32> to tensor<2x2xf16>
  %b = fusec.constant dense<3.0> : tensor<3xbf16>
  %1 = fusec.reciprocal %b : tensor<3xbf16>
  %n = fusec.constant dense<0x7FC00000> : tensor<2xf32>
  %2 = fusec.compare ne, %n, %n : tensor<2xf32>
  %c = fusec.constant dense<true> : tensor<2xi1>
  %x = fusec.constant dense<-0.0> : tensor<2xf16>
  %y = fusec.constant dense<0.0> : tensor<2xf16>
  %3 = fusec.select %c, %x, %y : tensor<2xi1>, tensor<2xf16>
  %p = fusec.constant dense<2.0> : tensor<2x1xf16>
  %q = fusec.constant dense<16.0> : tensor<3xf16>
  %4 = fusec.pow %p, %q : tensor<2x1xf16>, tensor<3xf16>
  %i = fusec.constant dense<-2147483648> : tensor<2xi32>
  %m = fusec.constant dense<-1> : tensor<2xi32>
  %5 = fusec.div %i, %m : tensor<2xi32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x2xf16>, tensor<3xbf16>, tensor<2xi1>, tensor<2xf16>, tensor<2x3xf16>, tensor<2xi32>
})mlir",
      // Empty tensors.
      R"mlir(func.func @main() -> (tensor<0x3xf32>, tensor<2x0xf32>, tensor<0xf16>, tensor<2x3xf32>, tensor<0x3xi1>) {
  %e = fusec.constant dense<> : tensor<0x3xf32>
  %0 = fusec.neg %e : tensor<0x3xf32>
  %f = fusec.constant dense<> : tensor<2x0xf32>
  %g = fusec.constant dense<1.0> : tensor<2x1xf32>
  %1 = fusec.add %f, %g : tensor<2x0xf32>, tensor<2x1xf32>
  %h = fusec.constant dense<> : tensor<0xf32>
  %2 = fusec.cast %h : tensor<0xf32> to tensor<0xf16>
  %3 = fusec.reduce_sum %f axes = [1] : tensor<2x0xf32> -> tensor<2xf32>
  %4 = fusec.broadcast_to %3 : tensor<2xf32> -> tensor<3x2xf32>
  %5 = fusec.transpose %4, [1, 0] : tensor<3x2xf32> -> tensor<2x3xf32>
  %6 = fusec.compare lt, %e, %e : tensor<0x3xf32>
  return %0, %1, %2, %5, %6 : tensor<0x3xf32>, tensor<2x0xf32>, tensor<0xf16>, tensor<2x3xf32>, tensor<0x3xi1>
})mlir",
  };
  for (const char *source : cases) {
    SCOPED_TRACE(source);
    auto plain = parse(source);
    auto folded = parse(source);
    ASSERT_TRUE(plain && folded);
    auto interpreted = run(*plain, "main", {});
    ASSERT_TRUE(mlir::succeeded(interpreted)) << allDiagnostics();
    ASSERT_TRUE(canonicalize(context, *folded));
    EXPECT_EQ(nonConstantOps(*folded), 0) << "not everything folded";
    auto fromFolded = run(*folded, "main", {});
    ASSERT_TRUE(mlir::succeeded(fromFolded)) << allDiagnostics();
    expectBitIdentical(*fromFolded, *interpreted, "folded vs interpreted");
  }
}

TEST_F(InterpreterTest, ConstantFoldingSpotValues) {
  // Independent values for some of the folded results above, so that folding
  // and interpretation are not just equal but right.
  auto module = parse(
      R"mlir(func.func @main() -> (tensor<2xf16>, tensor<2xbf16>, tensor<1x1xf16>, tensor<f16>) {
  %a = fusec.constant dense<[2048.0, 2048.0]> : tensor<2xf16>
  %b = fusec.constant dense<[1.0, 3.0]> : tensor<2xf16>
  %0 = fusec.add %a, %b : tensor<2xf16>
  %i = fusec.constant dense<[1077936129, 1086324735]> : tensor<2xi32>
  %1 = fusec.cast %i : tensor<2xi32> to tensor<2xbf16>
  %x = fusec.constant dense<[[1.0, 1.0, 1.0]]> : tensor<1x3xf16>
  %y = fusec.constant dense<[[2048.0], [1.0], [1.0]]> : tensor<3x1xf16>
  %2 = fusec.matmul %x, %y : tensor<1x3xf16>, tensor<3x1xf16> -> tensor<1x1xf16>
  %ones = fusec.constant dense<1.0> : tensor<4096xf16>
  %3 = fusec.reduce_sum %ones axes = [0] : tensor<4096xf16> -> tensor<f16>
  return %0, %1, %2, %3 : tensor<2xf16>, tensor<2xbf16>, tensor<1x1xf16>, tensor<f16>
})mlir");
  ASSERT_TRUE(module);
  ASSERT_TRUE(canonicalize(context, *module));
  EXPECT_EQ(nonConstantOps(*module), 0);
  auto r = run(*module, "main", {});
  ASSERT_TRUE(mlir::succeeded(r)) << allDiagnostics();
  ASSERT_EQ(r->size(), 4u);
  // 2049 -> 2048 (0x6800), 2051 -> 2052 (0x6802); see KernelsTest for the
  // bf16 double-rounding values (0x4e81 twice); 2050 = 0x6801; 4096 = 0x6c00.
  expectBits16((*r)[0], {0x6800, 0x6802}, "f16 add");
  expectBits16((*r)[1], {0x4e81, 0x4e81}, "i32->bf16");
  expectBits16((*r)[2], {0x6801}, "f16 matmul");
  expectBits16((*r)[3], {0x6c00}, "f16 sum");
}

/// Folds that return an operand unchanged (x + -0, x * 1, x / 1, x - 0,
/// max(x, x), min(x, x), reductions over singleton dimensions, ...) must
/// give what interpreting the operation gives, bit for bit, for every x:
/// run both on the same arguments.
const char *kIdentityFolds = R"mlir(
func.func @main(%x: tensor<6xf32>, %h: tensor<6xf16>, %b: tensor<6xbf16>)
    -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
        tensor<6xf32>, tensor<6xf32>, tensor<6xf16>, tensor<6xf16>,
        tensor<6xbf16>, tensor<6x1xf32>, tensor<6x1xf16>, tensor<6x1xbf16>,
        tensor<6xf32>) {
  %mz = fusec.constant dense<-0.0> : tensor<6xf32>
  %one = fusec.constant dense<1.0> : tensor<6xf32>
  %z = fusec.constant dense<0.0> : tensor<6xf32>
  %0 = fusec.add %x, %mz : tensor<6xf32>
  %1 = fusec.mul %x, %one : tensor<6xf32>
  %2 = fusec.div %x, %one : tensor<6xf32>
  %3 = fusec.sub %x, %z : tensor<6xf32>
  %4 = fusec.max %x, %x : tensor<6xf32>
  %5 = fusec.min %x, %x : tensor<6xf32>
  %hone = fusec.constant dense<1.0> : tensor<6xf16>
  %6 = fusec.mul %h, %hone : tensor<6xf16>
  %hmz = fusec.constant dense<-0.0> : tensor<6xf16>
  %7 = fusec.add %h, %hmz : tensor<6xf16>
  %bone = fusec.constant dense<1.0> : tensor<6xbf16>
  %8 = fusec.div %b, %bone : tensor<6xbf16>
  %x2 = fusec.reshape %x : tensor<6xf32> -> tensor<6x1xf32>
  %9 = fusec.reduce_max %x2 axes = [1] keep_dims : tensor<6x1xf32> -> tensor<6x1xf32>
  %h2 = fusec.reshape %h : tensor<6xf16> -> tensor<6x1xf16>
  %10 = fusec.reduce_mean %h2 axes = [1] keep_dims : tensor<6x1xf16> -> tensor<6x1xf16>
  %b2 = fusec.reshape %b : tensor<6xbf16> -> tensor<6x1xbf16>
  %11 = fusec.reduce_sum %b2 axes = [1] keep_dims : tensor<6x1xbf16> -> tensor<6x1xbf16>
  %t = fusec.constant dense<true> : tensor<6xi1>
  %12 = fusec.select %t, %x, %z : tensor<6xi1>, tensor<6xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
      : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>,
        tensor<6xf32>, tensor<6xf32>, tensor<6xf16>, tensor<6xf16>,
        tensor<6xbf16>, tensor<6x1xf32>, tensor<6x1xf16>, tensor<6x1xbf16>,
        tensor<6xf32>
}
)mlir";

TEST_F(InterpreterTest, IdentityFoldsMatchInterpretation) {
  // Ordinary values, signed zeros, infinities, quiet NaNs with payloads,
  // subnormals.
  std::vector<Buffer> args = {
      makeF32({6}, {-0.0f, 0.0f, 1.5f, -INFINITY, floatOf(0xffc00123u),
                    floatOf(0x00000003u)}),
      makeBits16(DType::F16, {6},
                 {0x8000, 0x0000, 0x3e00, 0xfc00, 0x7e05, 0x0003}),
      makeBits16(DType::BF16, {6},
                 {0x8000, 0x0000, 0x3fc0, 0xff80, 0xffc5, 0x0003})};
  auto plain = parse(kIdentityFolds);
  auto folded = parse(kIdentityFolds);
  ASSERT_TRUE(plain && folded);
  auto interpreted = run(*plain, "main", args);
  ASSERT_TRUE(mlir::succeeded(interpreted)) << allDiagnostics();
  ASSERT_TRUE(canonicalize(context, *folded));
  auto fromFolded = run(*folded, "main", args);
  ASSERT_TRUE(mlir::succeeded(fromFolded)) << allDiagnostics();
  expectBitIdentical(*fromFolded, *interpreted, "identity folds");
}

TEST_F(InterpreterTest, IdentityFoldsKeepSignalingNaNsNaN) {
  // The same with signalling NaNs. Interpreted, the f32 arithmetic quiets
  // them (x * 1 on 0x7f800001 gives 0x7fc00001); a fold that returns x keeps
  // 0x7f800001. The dialect promises NaN in, NaN out, not the payload or
  // quietness of a NaN (FusecDialect.td), as IEEE 754 and LLVM do: both
  // must be NaN, with the same sign.
  std::vector<Buffer> args = {
      makeF32({6}, {floatOf(0x7f800001u), floatOf(0xffa00000u), 1, 2, 3, 4}),
      makeBits16(DType::F16, {6}, {0x7c01, 0xfd00, 0, 0, 0, 0}),
      makeBits16(DType::BF16, {6}, {0x7f81, 0xffa0, 0, 0, 0, 0})};
  auto plain = parse(kIdentityFolds);
  auto folded = parse(kIdentityFolds);
  ASSERT_TRUE(plain && folded);
  auto interpreted = run(*plain, "main", args);
  ASSERT_TRUE(mlir::succeeded(interpreted)) << allDiagnostics();
  ASSERT_TRUE(canonicalize(context, *folded));
  auto fromFolded = run(*folded, "main", args);
  ASSERT_TRUE(mlir::succeeded(fromFolded)) << allDiagnostics();
  const char *names[] = {"add x, -0",
                         "mul x, 1",
                         "div x, 1",
                         "sub x, 0",
                         "max x, x",
                         "min x, x",
                         "f16 mul x, 1",
                         "f16 add x, -0",
                         "bf16 div x, 1",
                         "reduce_max 6x1",
                         "f16 reduce_mean 6x1",
                         "bf16 reduce_sum 6x1",
                         "select true"};
  ASSERT_EQ(fromFolded->size(), std::size(names));
  ASSERT_EQ(interpreted->size(), std::size(names));
  std::ostringstream mismatches;
  for (size_t i = 0; i < std::size(names); ++i) {
    const Buffer &f = (*fromFolded)[i], &p = (*interpreted)[i];
    for (int64_t e = 0; e < 2; ++e) {
      double fv = f.getAsDouble(e), pv = p.getAsDouble(e);
      if (!std::isnan(fv) || !std::isnan(pv) ||
          std::signbit(fv) != std::signbit(pv))
        mismatches << "  " << names[i] << ", element " << e << ": folded 0x"
                   << std::hex << rawAt(f, e) << ", interpreted 0x"
                   << rawAt(p, e) << std::dec << "\n";
    }
  }
  EXPECT_TRUE(mismatches.str().empty()) << "folding changed NaN results:\n"
                                        << mismatches.str();
}

/// Folds that rewrite operations in terms of their operands' producers
/// (transpose of transpose, slice of slice, reshape of reshape, broadcast of
/// broadcast, single-operand concat/split, same-type cast, x <pred> x for
/// integers, select with equal branches) must preserve what the program
/// computes.
TEST_F(InterpreterTest, CompositionFoldsMatchInterpretation) {
  const char *source = R"mlir(
func.func @main(%x: tensor<2x3x4xf32>, %i: tensor<6xi32>, %c: tensor<2x3x4xi1>)
    -> (tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<24xf32>,
        tensor<1x2x1xf32>, tensor<1x2x2xf32>, tensor<2x3x6xi32>,
        tensor<6xi1>, tensor<6xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<6xi32>, tensor<2x3x4xf32>) {
  %t = fusec.transpose %x, [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %0 = fusec.transpose %t, [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %1 = fusec.transpose %t, [1, 0, 2] : tensor<3x4x2xf32> -> tensor<4x3x2xf32>
  %r = fusec.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %2 = fusec.reshape %r : tensor<6x4xf32> -> tensor<24xf32>
  %s = fusec.slice %x [0, 1, 0] [2, 2, 2] [1, 1, 3] : tensor<2x3x4xf32> -> tensor<2x2x2xf32>
  %3 = fusec.slice %s [1, 0, 1] [1, 2, 1] [1, 1, 1] : tensor<2x2x2xf32> -> tensor<1x2x1xf32>
  %s2 = fusec.slice %x [0, 0, 0] [1, 3, 2] [1, 1, 2] : tensor<2x3x4xf32> -> tensor<1x3x2xf32>
  %4 = fusec.slice %s2 [0, 0, 0] [1, 2, 2] [1, 2, 1] : tensor<1x3x2xf32> -> tensor<1x2x2xf32>
  %b = fusec.broadcast_to %i : tensor<6xi32> -> tensor<1x6xi32>
  %5 = fusec.broadcast_to %b : tensor<1x6xi32> -> tensor<2x3x6xi32>
  %6 = fusec.compare le, %i, %i : tensor<6xi32>
  %7 = fusec.compare ne, %i, %i : tensor<6xi32>
  %8 = fusec.concat %x axis = 1 : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %9 = fusec.split %x axis = 2 sizes = [4] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  %10 = fusec.cast %i : tensor<6xi32> to tensor<6xi32>
  %11 = fusec.select %c, %x, %x : tensor<2x3x4xi1>, tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : tensor<2x3x4xf32>, tensor<4x3x2xf32>, tensor<24xf32>,
        tensor<1x2x1xf32>, tensor<1x2x2xf32>, tensor<2x3x6xi32>,
        tensor<6xi1>, tensor<6xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>,
        tensor<6xi32>, tensor<2x3x4xf32>
}
)mlir";
  std::vector<double> v(24);
  for (int i = 0; i < 24; ++i)
    v[i] = i * 1.5 - 7;
  std::vector<Buffer> args = {
      make(DType::F32, {2, 3, 4}, v),
      makeI32({6}, {-3, 0, 7, std::numeric_limits<int32_t>::min(), 1, 2}),
      make(DType::I1, {2, 3, 4}, std::vector<double>(24, 1.0))};
  args[2].as<uint8_t>()[5] = 0;
  auto plain = parse(source);
  auto folded = parse(source);
  ASSERT_TRUE(plain && folded);
  auto interpreted = run(*plain, "main", args);
  ASSERT_TRUE(mlir::succeeded(interpreted)) << allDiagnostics();
  ASSERT_TRUE(canonicalize(context, *folded));
  auto fromFolded = run(*folded, "main", args);
  ASSERT_TRUE(mlir::succeeded(fromFolded)) << allDiagnostics();
  expectBitIdentical(*fromFolded, *interpreted, "composition folds");
  // And the interpreted values themselves, by hand: x[b][c][a] = 12b+4c+a
  // scaled; slice %3 = x[1, 1..2, 3]; slice %4 = x[0, {0, 2}, {0, 2}].
  auto at = [&](int b, int c, int a) { return v[12 * b + 4 * c + a]; };
  expectExact((*interpreted)[0], v, "transpose o transpose");
  expectExact((*interpreted)[3], {at(1, 1, 3), at(1, 2, 3)}, "slice o slice");
  expectExact((*interpreted)[4],
              {at(0, 0, 0), at(0, 0, 2), at(0, 2, 0), at(0, 2, 2)},
              "strided slice o slice");
  expectInts((*interpreted)[6], {1, 1, 1, 1, 1, 1}, "x <= x");
  expectInts((*interpreted)[7], {0, 0, 0, 0, 0, 0}, "x != x");
}

} // namespace
