//===- kernels_benchmark.cpp - Speed of the reference kernels -------------===//
//
// Measures the interpreter's kernels against a plain loop doing the same
// memory traffic in the same process, and prints the ratios:
//
//   build/bench/kernels_benchmark
//
// A ratio near 1 means the kernel runs at the speed of a hand-written,
// auto-vectorised loop over contiguous data; the goal is "no per-element
// dispatch", not beating memcpy.
//
//===----------------------------------------------------------------------===//

#include "fusec/Interpreter/Kernels.h"
#include "fusec/Support/Float16.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

using namespace fusec;
namespace k = fusec::kernels;

namespace {

constexpr int64_t kRows = 1024, kCols = 1024;

Buffer filled(DType type, Shape shape) {
  Buffer b = Buffer::allocate(type, std::move(shape));
  for (int64_t i = 0; i < b.numElements(); ++i) {
    float v = float(i % 97) * 0.25f - 12.0f;
    switch (type) {
    case DType::F32:
      b.as<float>()[i] = v;
      break;
    case DType::F16:
      b.as<uint16_t>()[i] = floatToHalf(v);
      break;
    default:
      break;
    }
  }
  return b;
}

void setBytes(benchmark::State &state, int64_t bytesPerIteration) {
  state.SetBytesProcessed(state.iterations() * bytesPerIteration);
}

// --- f32 add, same shapes ----------------------------------------------------
void BM_AddF32_Kernel(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols}),
         b = filled(DType::F32, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F32, {kRows, kCols});
  for (auto _ : state) {
    k::binary(k::BinaryKind::Add, a, b, o);
    benchmark::DoNotOptimize(o.data());
  }
  setBytes(state, 3 * a.sizeInBytes());
}
void BM_AddF32_Plain(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols}),
         b = filled(DType::F32, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F32, {kRows, kCols});
  const float *pa = a.as<float>(), *pb = b.as<float>();
  float *po = o.as<float>();
  for (auto _ : state) {
    for (int64_t i = 0; i < kRows * kCols; ++i)
      po[i] = pa[i] + pb[i];
    benchmark::DoNotOptimize(po);
  }
  setBytes(state, 3 * a.sizeInBytes());
}

// --- f32 add with a broadcast row (bias add) ---------------------------------
void BM_BiasAddF32_Kernel(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols}),
         b = filled(DType::F32, {kCols});
  Buffer o = Buffer::allocate(DType::F32, {kRows, kCols});
  for (auto _ : state) {
    k::binary(k::BinaryKind::Add, a, b, o);
    benchmark::DoNotOptimize(o.data());
  }
  setBytes(state, 2 * a.sizeInBytes());
}
void BM_BiasAddF32_Plain(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols}),
         b = filled(DType::F32, {kCols});
  Buffer o = Buffer::allocate(DType::F32, {kRows, kCols});
  const float *pa = a.as<float>(), *pb = b.as<float>();
  float *po = o.as<float>();
  for (auto _ : state) {
    for (int64_t r = 0; r < kRows; ++r)
      for (int64_t c = 0; c < kCols; ++c)
        po[r * kCols + c] = pa[r * kCols + c] + pb[c];
    benchmark::DoNotOptimize(po);
  }
  setBytes(state, 2 * a.sizeInBytes());
}

// --- f16 multiply (convert, compute in f32, round)
// ----------------------------
void BM_MulF16_Kernel(benchmark::State &state) {
  Buffer a = filled(DType::F16, {kRows, kCols}),
         b = filled(DType::F16, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F16, {kRows, kCols});
  for (auto _ : state) {
    k::binary(k::BinaryKind::Mul, a, b, o);
    benchmark::DoNotOptimize(o.data());
  }
  setBytes(state, 3 * a.sizeInBytes());
}
void BM_MulF16_Plain(benchmark::State &state) {
  Buffer a = filled(DType::F16, {kRows, kCols}),
         b = filled(DType::F16, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F16, {kRows, kCols});
  const uint16_t *pa = a.as<uint16_t>(), *pb = b.as<uint16_t>();
  uint16_t *po = o.as<uint16_t>();
  for (auto _ : state) {
    for (int64_t i = 0; i < kRows * kCols; ++i)
      po[i] = floatToHalf(halfToFloat(pa[i]) * halfToFloat(pb[i]));
    benchmark::DoNotOptimize(po);
  }
  setBytes(state, 3 * a.sizeInBytes());
}

// --- row sum (reduce the innermost axis)
// ---------------------------------------
void BM_RowSumF32_Kernel(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F32, {kRows});
  for (auto _ : state) {
    k::reduce(k::ReduceKind::Sum, a, {1}, o);
    benchmark::DoNotOptimize(o.data());
  }
  setBytes(state, a.sizeInBytes());
}
void BM_RowSumF32_Plain(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F32, {kRows});
  const float *pa = a.as<float>();
  float *po = o.as<float>();
  for (auto _ : state) {
    for (int64_t r = 0; r < kRows; ++r) {
      double acc = -0.0;
      for (int64_t c = 0; c < kCols; ++c)
        acc += pa[r * kCols + c];
      po[r] = float(acc);
    }
    benchmark::DoNotOptimize(po);
  }
  setBytes(state, a.sizeInBytes());
}

// --- transpose ---------------------------------------------------------------
void BM_TransposeF32_Kernel(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F32, {kCols, kRows});
  for (auto _ : state) {
    k::transpose(a, {1, 0}, o);
    benchmark::DoNotOptimize(o.data());
  }
  setBytes(state, 2 * a.sizeInBytes());
}
void BM_TransposeF32_Plain(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kRows, kCols});
  Buffer o = Buffer::allocate(DType::F32, {kCols, kRows});
  const float *pa = a.as<float>();
  float *po = o.as<float>();
  for (auto _ : state) {
    for (int64_t r = 0; r < kCols; ++r)
      for (int64_t c = 0; c < kRows; ++c)
        po[r * kRows + c] = pa[c * kCols + r];
    benchmark::DoNotOptimize(po);
  }
  setBytes(state, 2 * a.sizeInBytes());
}

// --- matmul 256^3
// ---------------------------------------------------------------
constexpr int64_t kN = 256;
void BM_MatmulF32_Kernel(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kN, kN}), b = filled(DType::F32, {kN, kN});
  Buffer o = Buffer::allocate(DType::F32, {kN, kN});
  for (auto _ : state) {
    k::matmul(a, b, o);
    benchmark::DoNotOptimize(o.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(2 * kN * kN * kN), benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}
void BM_MatmulF32_Plain(benchmark::State &state) {
  Buffer a = filled(DType::F32, {kN, kN}), b = filled(DType::F32, {kN, kN});
  Buffer o = Buffer::allocate(DType::F32, {kN, kN});
  const float *pa = a.as<float>(), *pb = b.as<float>();
  float *po = o.as<float>();
  std::vector<double> acc(kN);
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t p = 0; p < kN; ++p) {
        double av = pa[i * kN + p];
        for (int64_t j = 0; j < kN; ++j)
          acc[j] += av * double(pb[p * kN + j]);
      }
      for (int64_t j = 0; j < kN; ++j)
        po[i * kN + j] = float(acc[j]);
    }
    benchmark::DoNotOptimize(po);
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      double(2 * kN * kN * kN), benchmark::Counter::kIsIterationInvariantRate,
      benchmark::Counter::kIs1000);
}

BENCHMARK(BM_AddF32_Kernel);
BENCHMARK(BM_AddF32_Plain);
BENCHMARK(BM_BiasAddF32_Kernel);
BENCHMARK(BM_BiasAddF32_Plain);
BENCHMARK(BM_MulF16_Kernel);
BENCHMARK(BM_MulF16_Plain);
BENCHMARK(BM_RowSumF32_Kernel);
BENCHMARK(BM_RowSumF32_Plain);
BENCHMARK(BM_TransposeF32_Kernel);
BENCHMARK(BM_TransposeF32_Plain);
BENCHMARK(BM_MatmulF32_Kernel);
BENCHMARK(BM_MatmulF32_Plain);

/// Console output as usual, plus the kernel/plain time ratio of each pair.
class RatioReporter : public benchmark::ConsoleReporter {
public:
  void ReportRuns(const std::vector<Run> &runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run &run : runs)
      times[run.benchmark_name()] = run.GetAdjustedRealTime();
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\nkernel time / plain-loop time (1.00 = as fast as the plain "
                "loop):\n");
    for (const auto &[name, time] : times) {
      std::string::size_type pos = name.find("_Kernel");
      if (pos == std::string::npos)
        continue;
      std::string plain = name.substr(0, pos) + "_Plain";
      auto it = times.find(plain);
      if (it != times.end())
        std::printf("  %-24s %.2f\n", name.substr(3, pos - 3).c_str(),
                    time / it->second);
    }
  }

private:
  std::map<std::string, double> times;
};

} // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
