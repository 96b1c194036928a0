//===- MemoryPlan.cpp - The compile-time memory plan ----------------------===//
//
// The definitions (accesses, live ranges, in-place pairs, validity) are in
// fusec/Runtime/MemoryPlan.h. The analysis and the check are shared by the
// planner and the reader of the artifact, so both agree by construction; the
// check is a sweep over the steps that keeps the byte ranges of the live
// temps in an ordered map, so that it stays O(n log n) on the largest
// programs.
//
// The planner turns every in-place chain into one allocation and then runs
// heap simulations, keeping the smallest arena:
//   - greedy by size (TFLite's arena planner, XLA's buffer assignment): the
//     largest allocation first, each at the best-fitting gap between the
//     allocations already placed that are live at the same time as it;
//   - greedy by breadth (TFLite): the allocations of the step with the most
//     bytes live first, then those of the next widest step, and so on, each
//     placed the same way;
//   - a linear scan in step order with a best-fit free list, which is
//     O(n log n) whatever the program.
// The two greedy ones look at every pair of allocations live at the same
// time, so they run only when there are not too many such pairs.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/MemoryPlan.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <utility>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

/// Sums of sizes for the lower bound: each size is below 2^63 + 256, and
/// there are far fewer than 2^60 buffers, so these sums are exact where an
/// int64 would overflow on a (necessarily invalid) file of huge buffers.
using Wide = __int128;

int64_t saturate(Wide v) {
  return v > Wide(INT64_MAX) ? INT64_MAX : int64_t(v);
}

Wide alignedSize(int64_t bytes) {
  return (Wide(bytes) + kArenaAlignment - 1) / kArenaAlignment *
         kArenaAlignment;
}

/// The aligned size where the planner's precondition guarantees it fits.
int64_t alignedSize64(int64_t bytes) { return saturate(alignedSize(bytes)); }

std::string bufferName(const Executable &exe, int64_t b) {
  return "buffer " + std::to_string(b) + " (" +
         quoteName(exe.buffers[size_t(b)].name) + ")";
}

/// "an input", "a constant", "an alias" (spelled here rather than with
/// bufferKindName so that the plan links without the artifact's reader).
const char *kindWithArticle(BufferKind kind) {
  switch (kind) {
  case BufferKind::Input:
    return "an input";
  case BufferKind::Constant:
    return "a constant";
  case BufferKind::Temp:
    return "a temp";
  case BufferKind::Alias:
    return "an alias";
  }
  return "an invalid";
}

bool isTemp(const Executable &exe, int64_t b) {
  return exe.buffers[size_t(b)].kind == BufferKind::Temp;
}

/// Calls `f` with every buffer step `s` accesses (reads and writes alike:
/// both make the root live).
/// A convolution accesses its input and what both of its forms do, so that
/// each device may run either.
template <typename F> void forEachAccess(const Step &s, F f) {
  auto launch = [&](const LaunchStep &l) {
    for (int64_t a : l.args)
      f(a);
  };
  auto matmul = [&](const MatmulStep &m) {
    f(m.a);
    f(m.b);
    if (m.bias >= 0)
      f(m.bias);
    f(m.c);
  };
  switch (s.kind) {
  case Step::Kind::Launch:
    launch(s.launch);
    return;
  case Step::Kind::Matmul:
    matmul(s.matmul);
    return;
  case Step::Kind::Conv:
    f(s.conv.input);
    launch(s.conv.gather);
    matmul(s.conv.product);
    return;
  }
}

std::vector<LiveRange> computeLiveRanges(const Executable &exe) {
  std::vector<LiveRange> ranges(exe.buffers.size());
  for (size_t s = 0; s < exe.steps.size(); ++s) {
    forEachAccess(exe.steps[s], [&](int64_t b) {
      int64_t r = rootBuffer(exe, b);
      if (!isTemp(exe, r))
        return;
      LiveRange &range = ranges[size_t(r)];
      // Steps come in order: the first access sets both ends.
      if (range.empty())
        range.first = int64_t(s);
      range.last = int64_t(s);
    });
  }
  auto end = int64_t(exe.steps.size());
  for (int64_t o : exe.outputs) {
    int64_t r = rootBuffer(exe, o);
    if (!isTemp(exe, r))
      continue;
    LiveRange &range = ranges[size_t(r)];
    if (range.empty())
      range.first = end;
    range.last = end;
  }
  return ranges;
}

/// Per buffer, the root it takes in place or -1, by the walk of the
/// definition. The planner asks before it has offsets (`sameOffset` false);
/// the analysis of a plan only counts pairs at the same offset.
std::vector<int64_t> findInPlacePairs(const Executable &exe,
                                      const std::vector<LiveRange> &ranges,
                                      bool sameOffset) {
  std::vector<int64_t> takes(exe.buffers.size(), -1);
  std::vector<char> taken(exe.buffers.size(), 0);
  std::vector<int64_t> roots;
  for (size_t s = 0; s < exe.steps.size(); ++s) {
    const Step &step = exe.steps[s];
    if (step.kind != Step::Kind::Launch)
      continue; // cuBLASLt never computes a product in place.
    const LaunchStep &l = step.launch;
    const KernelDesc &k = exe.kernels[size_t(l.kernel)];
    if (k.inPlace.empty())
      continue;
    const std::vector<int64_t> &args = l.args;
    auto numArgs = int64_t(args.size());
    // Sorted roots of all arguments, to count the arguments that share the
    // input's root without a pass over them for each permission.
    roots.clear();
    for (int64_t a : args)
      roots.push_back(rootBuffer(exe, a));
    std::sort(roots.begin(), roots.end());
    for (const auto &[i, o] : k.inPlace) {
      if (i < 0 || i >= k.numInputs || o < 0 || o >= k.numOutputs ||
          i >= numArgs || k.numInputs > numArgs || o >= numArgs - k.numInputs)
        continue;
      int64_t r = rootBuffer(exe, args[size_t(i)]);
      int64_t out = args[size_t(k.numInputs + o)];
      if (!isTemp(exe, r) || ranges[size_t(r)].last != int64_t(s))
        continue;
      if (!isTemp(exe, out) || ranges[size_t(out)].empty() ||
          ranges[size_t(out)].first != int64_t(s))
        continue;
      const BufferDesc &rb = exe.buffers[size_t(r)];
      const BufferDesc &ob = exe.buffers[size_t(out)];
      if (bufferBytes(rb) != bufferBytes(ob))
        continue;
      // args[i] itself is the one argument with this root. This also keeps
      // out from being r.
      auto same = std::equal_range(roots.begin(), roots.end(), r);
      if (same.second - same.first != 1)
        continue;
      if (sameOffset && rb.offset != ob.offset)
        continue;
      if (taken[size_t(r)] || takes[size_t(out)] >= 0)
        continue;
      takes[size_t(out)] = r;
      taken[size_t(r)] = 1;
    }
  }
  return takes;
}

/// `ids` sorted by `key(id)` in [0, numKeys), ties by id (a counting
/// sort: the keys are steps).
template <typename Key>
std::vector<int64_t> sortBySteps(const std::vector<int64_t> &ids,
                                 int64_t numKeys, Key key) {
  std::vector<int64_t> start(size_t(numKeys) + 1, 0);
  for (int64_t b : ids)
    ++start[size_t(key(b)) + 1];
  for (size_t k = 1; k < start.size(); ++k)
    start[k] += start[k - 1];
  std::vector<int64_t> sorted(ids.size());
  for (int64_t b : ids)
    sorted[size_t(start[size_t(key(b))]++)] = b;
  return sorted;
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

/// What the planner places: a temp, or an in-place chain of them.
struct Allocation {
  int64_t first = 0, last = -1; // Steps, as LiveRange.
  int64_t size = 0;             // Aligned.
};

/// For the query "which allocations are live at some step of allocation
/// a's range?" in time proportional to the answer, built once for all the
/// orderings. Those live at a.first and starting before it come from a
/// segment tree over the steps, each allocation listed at the O(log n)
/// nodes that cover its range exactly, so that the path from a.first's leaf
/// to the root meets each allocation containing a.first once; those
/// starting in [a.first, a.last] from the allocations sorted by first step.
/// Each pair of overlapping allocations is thus met once from each side.
/// The lists are flat arrays (offsets into one vector per structure).
class OverlapIndex {
public:
  OverlapIndex(const std::vector<Allocation> &allocs,
               const std::vector<int64_t> &ids, int64_t numSteps)
      : allocs(allocs) {
    while (leaves < numSteps)
      leaves *= 2;
    nodeStart.assign(size_t(2 * leaves) + 1, 0);
    for (int64_t id : ids)
      forEachNode(allocs[size_t(id)],
                  [&](int64_t n) { ++nodeStart[size_t(n) + 1]; });
    for (size_t n = 1; n < nodeStart.size(); ++n)
      nodeStart[n] += nodeStart[n - 1];
    nodeItems.resize(size_t(nodeStart.back()));
    std::vector<int64_t> fill(nodeStart.begin(), nodeStart.end() - 1);
    for (int64_t id : ids)
      forEachNode(allocs[size_t(id)], [&](int64_t n) {
        nodeItems[size_t(fill[size_t(n)]++)] = id;
      });
    byFirst = sortBySteps(ids, numSteps,
                          [&](int64_t id) { return allocs[size_t(id)].first; });
    firstStart.assign(size_t(numSteps) + 1, 0);
    for (int64_t id : ids)
      ++firstStart[size_t(allocs[size_t(id)].first) + 1];
    for (size_t t = 1; t < firstStart.size(); ++t)
      firstStart[t] += firstStart[t - 1];
  }

  /// Calls `f` with every other allocation of `ids` live at a step of
  /// allocation `id`'s range, each once.
  template <typename F> void forEachOverlapping(int64_t id, F f) const {
    const Allocation &a = allocs[size_t(id)];
    for (int64_t n = a.first + leaves; n >= 1; n /= 2)
      for (int64_t i = nodeStart[size_t(n)]; i < nodeStart[size_t(n) + 1]; ++i)
        if (allocs[size_t(nodeItems[size_t(i)])].first < a.first)
          f(nodeItems[size_t(i)]);
    for (int64_t i = firstStart[size_t(a.first)],
                 e = firstStart[size_t(a.last) + 1];
         i < e; ++i)
      if (byFirst[size_t(i)] != id)
        f(byFirst[size_t(i)]);
  }

private:
  const std::vector<Allocation> &allocs;
  int64_t leaves = 1;
  std::vector<int64_t> nodeStart, nodeItems;
  std::vector<int64_t> byFirst, firstStart;

  /// The canonical nodes of a's range, bottom-up.
  template <typename F> void forEachNode(const Allocation &a, F f) const {
    for (int64_t l = a.first + leaves, r = a.last + leaves + 1; l < r;
         l /= 2, r /= 2) {
      if (l & 1)
        f(l++);
      if (r & 1)
        f(--r);
    }
  }
};

/// Places `order`'s allocations one by one, each at the smallest gap that
/// holds it between the placed allocations live at the same time as it (the
/// lowest such gap among equals), else above all of them. Returns the arena.
int64_t placeGreedy(const std::vector<Allocation> &allocs,
                    const OverlapIndex &index,
                    const std::vector<int64_t> &order,
                    std::vector<int64_t> &offsets) {
  std::vector<char> placed(allocs.size(), 0);
  std::vector<std::pair<int64_t, int64_t>> blocks;
  int64_t arena = 0;
  for (int64_t id : order) {
    const Allocation &a = allocs[size_t(id)];
    blocks.clear();
    index.forEachOverlapping(id, [&](int64_t j) {
      if (placed[size_t(j)])
        blocks.emplace_back(offsets[size_t(j)],
                            offsets[size_t(j)] + allocs[size_t(j)].size);
    });
    std::sort(blocks.begin(), blocks.end());
    // The blocks may overlap one another (they need not be live together),
    // so the gap starts at the highest end seen so far.
    int64_t top = 0, best = -1, bestGap = INT64_MAX;
    for (const auto &[begin, end] : blocks) {
      if (begin - top >= a.size && begin - top < bestGap) {
        best = top;
        bestGap = begin - top;
      }
      top = std::max(top, end);
    }
    if (best < 0)
      best = top;
    offsets[size_t(id)] = best;
    arena = std::max(arena, best + a.size);
    placed[size_t(id)] = 1;
  }
  return arena;
}

/// Places the allocations in step order, each in the smallest free block of
/// the arena that holds it when it starts (blocks are freed after their last
/// step and merged with free neighbours), else at the top. Returns the
/// arena.
int64_t placeLinearScan(const std::vector<Allocation> &allocs,
                        const std::vector<int64_t> &ids,
                        std::vector<int64_t> &offsets) {
  std::vector<int64_t> order = ids;
  std::sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    const Allocation &a = allocs[size_t(x)], &b = allocs[size_t(y)];
    if (a.first != b.first)
      return a.first < b.first;
    if (a.size != b.size)
      return a.size > b.size;
    return x < y;
  });
  std::map<int64_t, int64_t> freeByOffset;          // offset -> size
  std::set<std::pair<int64_t, int64_t>> freeBySize; // (size, offset)
  int64_t top = 0, arena = 0;
  auto release = [&](int64_t offset, int64_t size) {
    auto next = freeByOffset.lower_bound(offset);
    if (next != freeByOffset.begin()) {
      auto prev = std::prev(next);
      if (prev->first + prev->second == offset) {
        offset = prev->first;
        size += prev->second;
        freeBySize.erase({prev->second, prev->first});
        freeByOffset.erase(prev);
      }
    }
    if (next != freeByOffset.end() && offset + size == next->first) {
      size += next->second;
      freeBySize.erase({next->second, next->first});
      freeByOffset.erase(next);
    }
    // A free block at the top is just the space above the top.
    if (offset + size == top) {
      top = offset;
      return;
    }
    freeByOffset.emplace(offset, size);
    freeBySize.emplace(size, offset);
  };
  using Ending = std::pair<int64_t, int64_t>; // (last step, allocation)
  std::priority_queue<Ending, std::vector<Ending>, std::greater<Ending>> live;
  for (int64_t id : order) {
    const Allocation &a = allocs[size_t(id)];
    while (!live.empty() && live.top().first < a.first) {
      int64_t j = live.top().second;
      live.pop();
      release(offsets[size_t(j)], allocs[size_t(j)].size);
    }
    auto fit = freeBySize.lower_bound({a.size, INT64_MIN});
    if (fit != freeBySize.end()) {
      auto [size, offset] = *fit;
      freeBySize.erase(fit);
      freeByOffset.erase(offset);
      offsets[size_t(id)] = offset;
      if (size > a.size) {
        freeByOffset.emplace(offset + a.size, size - a.size);
        freeBySize.emplace(size - a.size, offset + a.size);
      }
    } else {
      offsets[size_t(id)] = top;
      top += a.size;
      arena = std::max(arena, top);
    }
    live.emplace(a.last, id);
  }
  return arena;
}

/// The number of pairs of allocations live at a common step: the work of
/// the greedy placements.
int64_t countOverlappingPairs(const std::vector<Allocation> &allocs,
                              const std::vector<int64_t> &ids,
                              int64_t numSteps) {
  // firstUpTo[t]: allocations starting at t or before; lastBefore[t]: those
  // ending before t. Allocation i overlaps the j with first_j <= last_i and
  // last_j >= first_i, itself included.
  std::vector<int64_t> firstUpTo(size_t(numSteps) + 1, 0);
  std::vector<int64_t> lastBefore(size_t(numSteps) + 1, 0);
  for (int64_t id : ids) {
    ++firstUpTo[size_t(allocs[size_t(id)].first)];
    ++lastBefore[size_t(allocs[size_t(id)].last) + 1];
  }
  for (size_t t = 1; t <= size_t(numSteps); ++t) {
    firstUpTo[t] += firstUpTo[t - 1];
    lastBefore[t] += lastBefore[t - 1];
  }
  int64_t total = 0;
  for (int64_t id : ids) {
    const Allocation &a = allocs[size_t(id)];
    total += firstUpTo[size_t(a.last)] - lastBefore[size_t(a.first)] - 1;
  }
  return total / 2;
}

/// Greedy by breadth as an order of the allocations: steps from the widest
/// (most bytes live) down, and at each step its allocations not yet placed,
/// largest first. An allocation thus comes at the widest step of its range,
/// found with a sparse table of the steps' ranks.
std::vector<int64_t> breadthOrder(const std::vector<Allocation> &allocs,
                                  const std::vector<int64_t> &ids,
                                  int64_t numSteps) {
  std::vector<int64_t> breadth(size_t(numSteps) + 1, 0);
  for (int64_t id : ids) {
    breadth[size_t(allocs[size_t(id)].first)] += allocs[size_t(id)].size;
    breadth[size_t(allocs[size_t(id)].last) + 1] -= allocs[size_t(id)].size;
  }
  for (size_t t = 1; t < breadth.size(); ++t)
    breadth[t] += breadth[t - 1];
  std::vector<int64_t> steps(static_cast<size_t>(numSteps));
  for (int64_t t = 0; t < numSteps; ++t)
    steps[size_t(t)] = t;
  std::stable_sort(steps.begin(), steps.end(), [&](int64_t x, int64_t y) {
    return breadth[size_t(x)] > breadth[size_t(y)];
  });
  // table[k][t]: the best (lowest) rank among steps [t, t + 2^k).
  std::vector<std::vector<int64_t>> table(1,
                                          std::vector<int64_t>(steps.size()));
  for (size_t r = 0; r < steps.size(); ++r)
    table[0][size_t(steps[r])] = int64_t(r);
  for (size_t k = 1; (int64_t(1) << k) <= numSteps; ++k) {
    const std::vector<int64_t> &prev = table[k - 1];
    size_t half = size_t(1) << (k - 1);
    std::vector<int64_t> row(steps.size() - 2 * half + 1);
    for (size_t t = 0; t < row.size(); ++t)
      row[t] = std::min(prev[t], prev[t + half]);
    table.push_back(std::move(row));
  }
  auto bestRank = [&](int64_t first, int64_t last) {
    size_t k = 0;
    while ((int64_t(2) << k) <= last - first + 1)
      ++k;
    return std::min(table[k][size_t(first)],
                    table[k][size_t(last + 1 - (int64_t(1) << k))]);
  };
  std::vector<std::pair<int64_t, int64_t>> keyed; // (rank, allocation)
  keyed.reserve(ids.size());
  for (int64_t id : ids)
    keyed.emplace_back(
        bestRank(allocs[size_t(id)].first, allocs[size_t(id)].last), id);
  std::sort(keyed.begin(), keyed.end(), [&](const auto &x, const auto &y) {
    if (x.first != y.first)
      return x.first < y.first;
    const Allocation &a = allocs[size_t(x.second)],
                     &b = allocs[size_t(y.second)];
    if (a.size != b.size)
      return a.size > b.size;
    if (a.first != b.first)
      return a.first < b.first;
    return x.second < y.second;
  });
  std::vector<int64_t> order;
  order.reserve(keyed.size());
  for (const auto &k : keyed)
    order.push_back(k.second);
  return order;
}

/// Above this many pairs of allocations live together, the greedy
/// placements (whose work grows with that number) are skipped and the
/// linear scan alone plans: about a second of work. Real models stay far
/// below it.
constexpr int64_t kMaxGreedyPairs = int64_t(1) << 25;

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

MemoryAnalysis fusec::rt::analyzeMemory(const Executable &exe) {
  MemoryAnalysis result;
  result.liveRanges = computeLiveRanges(exe);
  result.inPlaceOf = findInPlacePairs(exe, result.liveRanges, true);
  // delta[t]: the change of the bytes live from step t - 1 to step t.
  size_t numSteps = exe.steps.size() + 1;
  std::vector<Wide> delta(numSteps + 1, 0);
  Wide total = 0;
  for (size_t b = 0; b < exe.buffers.size(); ++b) {
    if (!isTemp(exe, int64_t(b)))
      continue;
    Wide size = alignedSize(bufferBytes(exe.buffers[b]));
    total += size;
    const LiveRange &range = result.liveRanges[b];
    if (range.empty())
      continue;
    delta[size_t(range.first)] += size;
    delta[size_t(range.last) + 1] -= size;
    // The one step where a pair is live together, it shares its bytes.
    if (result.inPlaceOf[b] >= 0) {
      delta[size_t(range.first)] -= size;
      delta[size_t(range.first) + 1] += size;
    }
  }
  Wide live = 0, best = 0;
  for (size_t t = 0; t < numSteps; ++t) {
    live += delta[t];
    if (live > best) {
      best = live;
      result.peakStep = int64_t(t);
    }
  }
  result.lowerBoundBytes = saturate(best);
  result.oneBufferPerTempBytes = saturate(total);
  return result;
}

bool fusec::rt::checkMemoryPlan(const Executable &exe, std::string &error) {
  auto fail = [&](const std::string &message) {
    error = message;
    return false;
  };
  const MemoryFigures &m = exe.memory;
  std::string align = std::to_string(kArenaAlignment);
  if (m.arenaBytes < 0)
    return fail("the arena size " + std::to_string(m.arenaBytes) +
                " is negative");
  if (m.workspaceBytes < 0 || m.workspaceBytes % kArenaAlignment != 0)
    return fail("the workspace size " + std::to_string(m.workspaceBytes) +
                " is not a non-negative multiple of " + align);
  for (size_t i = 0; i < exe.buffers.size(); ++i) {
    const BufferDesc &b = exe.buffers[i];
    std::string what = bufferName(exe, int64_t(i)) + ": ";
    if (b.kind != BufferKind::Temp) {
      if (b.offset != -1)
        return fail(what + "offset " + std::to_string(b.offset) + " for " +
                    kindWithArticle(b.kind) +
                    " buffer; only temps are placed in the arena (expected "
                    "-1)");
      continue;
    }
    if (b.offset < 0)
      return fail(what + "negative offset " + std::to_string(b.offset));
    if (b.offset % kArenaAlignment != 0)
      return fail(what + "offset " + std::to_string(b.offset) +
                  " is not a multiple of " + align);
    int64_t bytes = bufferBytes(b);
    // No overflow: both sides of the subtraction are non-negative.
    if (bytes > m.arenaBytes || b.offset > m.arenaBytes - bytes)
      return fail(what + std::to_string(bytes) + " bytes at offset " +
                  std::to_string(b.offset) + " do not fit in the " +
                  std::to_string(m.arenaBytes) + "-byte arena");
  }

  MemoryAnalysis analysis = analyzeMemory(exe);
  const std::vector<LiveRange> &ranges = analysis.liveRanges;
  // The sweep: at each step, the temps that start there are checked against
  // the byte ranges of those live, which never intersect (the map keeps them
  // by offset, so the only candidates are the neighbours), then those that
  // end there leave. Zero-byte temps and temps that are never live take no
  // part.
  auto numSteps = int64_t(exe.steps.size()) + 1;
  std::vector<int64_t> ids;
  for (size_t b = 0; b < exe.buffers.size(); ++b)
    if (isTemp(exe, int64_t(b)) && !ranges[b].empty() &&
        bufferBytes(exe.buffers[b]) > 0)
      ids.push_back(int64_t(b));
  std::vector<int64_t> byFirst = sortBySteps(
      ids, numSteps, [&](int64_t b) { return ranges[size_t(b)].first; });
  std::vector<int64_t> byLast = sortBySteps(
      ids, numSteps, [&](int64_t b) { return ranges[size_t(b)].last; });
  auto offsetOf = [&](int64_t b) { return exe.buffers[size_t(b)].offset; };
  auto endOf = [&](int64_t b) {
    return offsetOf(b) + bufferBytes(exe.buffers[size_t(b)]);
  };
  std::map<int64_t, int64_t> live; // offset -> buffer
  size_t nextFirst = 0, nextLast = 0;
  for (int64_t t = 0; t < numSteps; ++t) {
    for (; nextFirst < byFirst.size() &&
           ranges[size_t(byFirst[nextFirst])].first == t;
         ++nextFirst) {
      int64_t b = byFirst[nextFirst];
      int64_t begin = offsetOf(b), end = endOf(b);
      auto next = live.lower_bound(begin);
      auto hit = live.end();
      if (next != live.begin() && endOf(std::prev(next)->second) > begin)
        hit = std::prev(next);
      else if (next != live.end() && next->first < end)
        hit = next;
      if (hit == live.end()) {
        live.emplace(begin, b);
        continue;
      }
      int64_t other = hit->second;
      // An in-place pair has the same bytes; the one that lives on stays.
      if (analysis.inPlaceOf[size_t(b)] == other) {
        hit->second = b;
        continue;
      }
      if (analysis.inPlaceOf[size_t(other)] == b)
        continue;
      int64_t x = std::min(b, other), y = std::max(b, other);
      return fail(bufferName(exe, x) + " and " + bufferName(exe, y) +
                  " are live together at step " + std::to_string(t) +
                  " but share bytes [" +
                  std::to_string(std::max(begin, offsetOf(other))) + ", " +
                  std::to_string(std::min(end, endOf(other))) +
                  ") of the arena");
    }
    for (;
         nextLast < byLast.size() && ranges[size_t(byLast[nextLast])].last == t;
         ++nextLast) {
      int64_t b = byLast[nextLast];
      auto it = live.find(offsetOf(b));
      if (it != live.end() && it->second == b)
        live.erase(it);
    }
  }

  if (m.lowerBoundBytes != analysis.lowerBoundBytes)
    return fail("the lower bound is " + std::to_string(m.lowerBoundBytes) +
                " bytes, but the live temps need " +
                std::to_string(analysis.lowerBoundBytes) + " bytes at " +
                describeStep(exe, analysis.peakStep));
  if (m.peakStep != analysis.peakStep)
    return fail("the peak step is " + std::to_string(m.peakStep) +
                ", but the live temps first need " +
                std::to_string(analysis.lowerBoundBytes) + " bytes at " +
                describeStep(exe, analysis.peakStep));
  return true;
}

void fusec::rt::planMemory(Executable &exe, const MemoryPlanOptions &options) {
  size_t numBuffers = exe.buffers.size();
  auto numSteps = int64_t(exe.steps.size()) + 1;
  std::vector<LiveRange> ranges = computeLiveRanges(exe);
  std::vector<int64_t> takes = options.inPlace
                                   ? findInPlacePairs(exe, ranges, false)
                                   : std::vector<int64_t>(numBuffers, -1);
  std::vector<int64_t> takenBy(numBuffers, -1);
  for (size_t b = 0; b < numBuffers; ++b)
    if (takes[b] >= 0)
      takenBy[size_t(takes[b])] = int64_t(b);

  // One allocation per chain, from the temp that takes no root: the ranges
  // of a chain meet end to start, so their union is one range.
  std::vector<int64_t> allocOf(numBuffers, -1);
  std::vector<Allocation> allocs;
  for (size_t b = 0; b < numBuffers; ++b) {
    if (!isTemp(exe, int64_t(b)) || takes[b] >= 0)
      continue;
    Allocation a;
    a.first = ranges[b].first;
    a.last = ranges[b].last;
    a.size = alignedSize64(bufferBytes(exe.buffers[b]));
    allocOf[b] = int64_t(allocs.size());
    for (int64_t c = takenBy[b]; c >= 0; c = takenBy[size_t(c)]) {
      allocOf[size_t(c)] = int64_t(allocs.size());
      a.last = ranges[size_t(c)].last;
    }
    allocs.push_back(a);
  }

  // Allocations that occupy nothing go at offset 0, where the arena only
  // needs to hold those never live.
  std::vector<int64_t> placeable;
  int64_t minArena = 0;
  for (size_t i = 0; i < allocs.size(); ++i) {
    if (allocs[i].first <= allocs[i].last && allocs[i].size > 0)
      placeable.push_back(int64_t(i));
    else
      minArena = std::max(minArena, allocs[i].size);
  }

  std::vector<int64_t> best(allocs.size(), 0), offsets(allocs.size(), 0);
  int64_t bestArena = placeLinearScan(allocs, placeable, best);
  auto consider = [&](int64_t arena) {
    if (arena < bestArena) {
      bestArena = arena;
      best = offsets;
    }
  };
  if (countOverlappingPairs(allocs, placeable, numSteps) <= kMaxGreedyPairs) {
    std::vector<int64_t> bySize = placeable;
    std::sort(bySize.begin(), bySize.end(), [&](int64_t x, int64_t y) {
      const Allocation &a = allocs[size_t(x)], &b = allocs[size_t(y)];
      if (a.size != b.size)
        return a.size > b.size;
      if (a.first != b.first)
        return a.first < b.first;
      return x < y;
    });
    OverlapIndex index(allocs, placeable, numSteps);
    consider(placeGreedy(allocs, index, bySize, offsets));
    consider(placeGreedy(allocs, index,
                         breadthOrder(allocs, placeable, numSteps), offsets));
  }

  for (size_t b = 0; b < numBuffers; ++b)
    exe.buffers[b].offset =
        allocOf[b] >= 0 ? best[size_t(allocOf[b])] : int64_t(-1);
  exe.memory.arenaBytes = std::max(bestArena, minArena);
  // The figures of the plan as the reader derives them (the pairs decided
  // above are exactly those at the same offset).
  MemoryAnalysis analysis = analyzeMemory(exe);
  exe.memory.lowerBoundBytes = analysis.lowerBoundBytes;
  exe.memory.peakStep = analysis.peakStep;
}

std::string fusec::rt::describeStep(const Executable &exe, int64_t step) {
  auto numSteps = int64_t(exe.steps.size());
  if (step == numSteps)
    return "after the last step";
  std::string s = "step " + std::to_string(step);
  if (step < 0 || step > numSteps)
    return s + " (out of range)";
  const Step &st = exe.steps[size_t(step)];
  if (st.kind == Step::Kind::Matmul)
    return s + " (matmul)";
  if (st.kind == Step::Kind::Conv)
    return s + " (convolution)";
  int64_t k = st.launch.kernel;
  s += " (launch of kernel " + std::to_string(k);
  if (k >= 0 && uint64_t(k) < exe.kernels.size())
    s += " " + quoteName(exe.kernels[size_t(k)].name, '\'');
  return s + ")";
}
