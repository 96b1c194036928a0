//===- CpuDeviceTest.cpp - The cpu device's thread pool and compiler ------===//
//
// rt::ThreadPool's partition (every unit once, the same chunks for the same
// thread count, nested use of the pool's result after the call), and
// rt::compileCpuLibrary / rt::CpuDevice on hand-written CPU kernels: a
// kernel split over threads computes what one thread does, a cached
// library is loaded again from the cache, and a compiler that does
// not run or a source that does not compile is an error, not a crash.
// Expected values are computed here by hand.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cpu/CpuDevice.h"
#include "fusec/Runtime/Cpu/ThreadPool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unistd.h>
#include <vector>

using namespace fusec::rt;

namespace {

TEST(ThreadPool, CoversEveryUnitOnceInFixedChunks) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.size(), threads);
    for (int64_t units : {0, 1, 2, 5, 7, 1000}) {
      std::vector<std::atomic<int>> seen(static_cast<size_t>(units));
      std::mutex mutex;
      std::vector<std::pair<int64_t, int64_t>> chunks;
      pool.parallelFor(units, [&](int64_t begin, int64_t end) {
        for (int64_t u = begin; u < end; ++u)
          ++seen[size_t(u)];
        std::lock_guard<std::mutex> lock(mutex);
        chunks.emplace_back(begin, end);
      });
      for (int64_t u = 0; u < units; ++u)
        EXPECT_EQ(seen[size_t(u)], 1) << units << " units, unit " << u;
      // Chunk t is [t * units / threads, (t + 1) * units / threads).
      std::sort(chunks.begin(), chunks.end());
      std::vector<std::pair<int64_t, int64_t>> want;
      for (int t = 0; t < threads; ++t) {
        int64_t b = units * t / threads, e = units * (t + 1) / threads;
        if (b < e)
          want.emplace_back(b, e);
      }
      if (units == 1)
        want = {{0, 1}}; // Run on the caller.
      EXPECT_EQ(chunks, want) << threads << " threads, " << units << " units";
    }
  }
}

TEST(ThreadPool, RunsManyLoopsInARow) {
  ThreadPool pool(4);
  std::atomic<int64_t> sum{0};
  for (int i = 0; i < 2000; ++i)
    pool.parallelFor(8, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum, 2000 * 8);
}

TEST(ThreadPool, AvailableCpusIsPositive) {
  EXPECT_GE(ThreadPool::availableCpus(), 1);
}

/// A CPU kernel in the emitted form: out[i] = in[i] * 2 + 1 over units of
/// 10 elements.
const char kSource[] = R"cpp(
typedef long long fusec_i64;
extern "C" void k_cpu(fusec_i64 begin, fusec_i64 end, void **args) {
  const float *in = (const float *)args[0];
  float *out = (float *)args[1];
  for (fusec_i64 i = begin * 10; i < end * 10; ++i)
    out[i] = in[i] * 2.0f + 1.0f;
}
extern "C" const fusec_i64 k_cpu_units = 100;
)cpp";

std::string freshCacheDirectory() {
  char pattern[] = "/tmp/fusec-cpu-test-XXXXXX";
  const char *dir = mkdtemp(pattern);
  return dir ? dir : "off";
}

TEST(CpuCompiler, CompilesCachesAndLoads) {
  CpuCompilerOptions options;
  options.cacheDirectory = freshCacheDirectory();
  std::string error;
  std::unique_ptr<CpuLibrary> first =
      compileCpuLibrary(kSource, options, error);
  ASSERT_TRUE(first) << error;
  EXPECT_NE(first->origin().find("compiled by"), std::string::npos)
      << first->origin();
  ASSERT_TRUE(first->lookup("k_cpu"));
  EXPECT_EQ(*static_cast<const int64_t *>(first->lookup("k_cpu_units")), 100);
  EXPECT_EQ(first->lookup("not_there"), nullptr);
  // The second time, from the cache.
  std::unique_ptr<CpuLibrary> again =
      compileCpuLibrary(kSource, options, error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->origin(), "from the kernel cache");
}

TEST(CpuCompiler, ReportsAMissingCompilerAndCompileErrors) {
  CpuCompilerOptions options;
  options.cacheDirectory = "off";
  options.compiler = "/nonexistent/c++";
  std::string error;
  EXPECT_FALSE(compileCpuLibrary(kSource, options, error));
  EXPECT_NE(error.find("needs a C++ compiler"), std::string::npos) << error;
  options.compiler = "";
  error.clear();
  EXPECT_FALSE(compileCpuLibrary("this is not C++", options, error));
  EXPECT_NE(error.find("failed on the CPU kernels"), std::string::npos)
      << error;
}

TEST(CpuDevice, LoadsTheExecutablesKernels) {
  Executable exe;
  KernelDesc k;
  k.name = "k";
  k.numInputs = k.numOutputs = 1;
  k.params = {{fusec::DType::F32, 1000}, {fusec::DType::F32, 1000}};
  exe.kernels.push_back(k);
  CpuDeviceOptions options;
  options.threads = 3;
  options.compiler.cacheDirectory = "off";
  CpuDevice device(options);
  EXPECT_EQ(device.name(), "the host CPU (3 threads)");
  EXPECT_FALSE(device.poisonsTemporaries());
  std::string error;
  EXPECT_FALSE(device.loadKernels(exe, error));
  EXPECT_NE(error.find("no CPU code"), std::string::npos) << error;
  exe.cpuSource = kSource;
  error.clear();
  EXPECT_TRUE(device.loadKernels(exe, error)) << error;
  exe.kernels[0].name = "other";
  EXPECT_FALSE(device.loadKernels(exe, error));
  EXPECT_NE(error.find("lacks 'other_cpu'"), std::string::npos) << error;
}

} // namespace
