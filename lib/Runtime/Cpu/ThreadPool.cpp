//===- ThreadPool.cpp - The cpu device's workers --------------------------===//

#include "fusec/Runtime/Cpu/ThreadPool.h"

#include <sched.h>

using namespace fusec::rt;

ThreadPool::ThreadPool(int threads) {
  for (int i = 1; i < threads; ++i)
    workers.emplace_back([this, i] { work(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  start.notify_all();
  for (std::thread &t : workers)
    t.join();
}

static void runChunk(const std::function<void(int64_t, int64_t)> &body,
                     int64_t units, int index, int threads) {
  // (units < 2^63 and threads <= 2^31: the products fit in 128 bits.)
  int64_t begin = int64_t(__int128(units) * index / threads);
  int64_t end = int64_t(__int128(units) * (index + 1) / threads);
  if (begin < end)
    body(begin, end);
}

void ThreadPool::work(int index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(int64_t, int64_t)> *task;
    int64_t n;
    {
      std::unique_lock<std::mutex> lock(mutex);
      start.wait(lock, [&] { return stopping || generation != seen; });
      if (stopping)
        return;
      seen = generation;
      task = body;
      n = units;
    }
    runChunk(*task, n, index, size());
    std::lock_guard<std::mutex> lock(mutex);
    if (--pending == 0)
      done.notify_one();
  }
}

void ThreadPool::parallelFor(
    int64_t n, const std::function<void(int64_t, int64_t)> &task) {
  if (n <= 0)
    return;
  if (workers.empty() || n == 1) {
    task(0, n);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex);
    body = &task;
    units = n;
    pending = int(workers.size());
    ++generation;
  }
  start.notify_all();
  runChunk(task, n, 0, size());
  std::unique_lock<std::mutex> lock(mutex);
  done.wait(lock, [&] { return pending == 0; });
}

int ThreadPool::availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0)
      return n;
  }
  unsigned n = std::thread::hardware_concurrency();
  return n ? int(n) : 1;
}
