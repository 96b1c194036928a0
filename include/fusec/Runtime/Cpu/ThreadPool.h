//===- ThreadPool.h - The cpu device's workers ------------------*- C++ -*-===//
//
// A fixed set of threads that run one parallel loop at a time: the range
// of work units is cut into one contiguous chunk per thread (the same
// chunks for the same thread count, so results that depend on the chunks
// are deterministic), the calling thread runs the first chunk, and the
// call returns when every chunk is done.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CPU_THREADPOOL_H
#define FUSEC_RUNTIME_CPU_THREADPOOL_H

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fusec::rt {

class ThreadPool {
public:
  /// `threads` >= 1 threads in all: the caller and threads - 1 workers.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  int size() const { return int(workers.size()) + 1; }

  /// Runs `body(begin, end)` on chunk t = [t * units / size(), (t + 1) *
  /// units / size()) for every t with a non-empty chunk, chunk 0 on the
  /// calling thread; returns when all are done. One call at a time.
  void parallelFor(int64_t units,
                   const std::function<void(int64_t, int64_t)> &body);

  /// The CPUs this process may run on (its affinity mask), at least 1.
  static int availableCpus();

private:
  void work(int index);

  std::vector<std::thread> workers;
  std::mutex mutex;
  std::condition_variable start, done;
  const std::function<void(int64_t, int64_t)> *body = nullptr;
  int64_t units = 0;
  uint64_t generation = 0;
  int pending = 0;
  bool stopping = false;
};

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CPU_THREADPOOL_H
