//===- MemoryPlan.h - The compile-time memory plan --------------*- C++ -*-===//
//
// fusec knows the size and the lifetime of every buffer when it compiles, so
// the memory of the temporaries is planned exactly, once: every temporary
// (BufferKind::Temp) gets an offset in one arena that the runtime allocates
// once per executable. Inputs and constants live outside the arena; an alias
// (a view) uses the bytes of the buffer it views, its root (rootBuffer).
//
// This header is the one definition of what a valid plan is. The planner
// (planMemory, used by the compiler) and the reader of the artifact
// (checkMemoryPlan, used by parseExecutable) both follow it:
//
// Accesses. A launch step reads its input arguments and writes its output
// arguments (its args: the kernel's numInputs inputs, then its numOutputs
// outputs). A matmul step reads a, b and the bias (when `bias` is not -1)
// and writes c. An access to an alias is an access to its root.
//
// Live range of a temp root: [the first step that accesses it, the last step
// that accesses it], both included. When the root or an alias of it is one
// of `exe.outputs`, the range extends to steps.size(), a pseudo-step "after
// the last step" at which the caller reads the results (an output that no
// step accesses lives at steps.size() only). A temp that no step accesses
// and that is not an output has an empty range and occupies nothing. Only
// temp roots have live ranges; a zero-byte temp never conflicts.
//
// Aligned size: bufferBytes rounded up to kArenaAlignment.
//
// In place. At launch step s of kernel k, output number o (buffer
// out = args[numInputs + o]) may occupy exactly the bytes of input
// parameter i (buffer in = args[i]) when all of these hold:
//   - (i, o) is in k.inPlace;
//   - root(in) is a Temp whose live range ends at s (so it is not an output
//     of the function, and no later step reads it);
//   - out is a Temp (not an alias) whose live range starts at s;
//   - bufferBytes(root(in)) == bufferBytes(out);
//   - no other argument of the launch, input or output, has the root of in
//     as its root (a kernel that reads the input through another parameter
//     could read an element after it was overwritten);
//   - root(in) and out have the same offset.
// The pairs are taken walking the launches in step order and each kernel's
// inPlace list in its order, a pair only when its input root has not been
// taken yet and its output has not taken a root yet: a root is taken in
// place at most once, an output takes at most one root. Pairs can chain
// (t1 takes t0 at step 3, t2 takes t1 at step 5): the chain is one
// allocation.
//
// A plan is valid (checkMemoryPlan) when:
//   - every temp's offset is >= 0, a multiple of kArenaAlignment, and
//     offset + bufferBytes <= memory.arenaBytes, temps that are never live
//     included; every other buffer's offset is -1;
//   - memory.arenaBytes >= 0 (it may be larger than needed), and
//     memory.workspaceBytes (cuBLASLt's workspace, sized by the compiler) is
//     >= 0 and a multiple of kArenaAlignment;
//   - no two temps whose live ranges share a step (both non-empty) have
//     byte ranges [offset, offset + bytes) that intersect (both non-empty),
//     except an in-place pair, at the step where one ends and the other
//     starts;
//   - memory.lowerBoundBytes and memory.peakStep are exactly what
//     analyzeMemory computes.
//
// Every function here expects an executable that passed the reader's
// structural checks: every buffer, kernel and step index in range, an alias
// never views an alias, every bufferBytes fits in int64.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_MEMORYPLAN_H
#define FUSEC_RUNTIME_MEMORYPLAN_H

#include "fusec/Runtime/Executable.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fusec::rt {

/// An inclusive range of steps [first, last]; empty when last < first.
/// Step steps.size() stands for "after the last step".
struct LiveRange {
  int64_t first = 0;
  int64_t last = -1;

  bool empty() const { return last < first; }
  bool contains(int64_t step) const { return first <= step && step <= last; }
  /// Whether both are non-empty and share at least one step.
  bool overlaps(const LiveRange &other) const {
    return !empty() && !other.empty() && first <= other.last &&
           other.first <= last;
  }
};

/// What the plan's figures are derived from; see the definitions above.
struct MemoryAnalysis {
  /// Per buffer: the live range of a temp root, empty for every other buffer
  /// (inputs, constants, aliases).
  std::vector<LiveRange> liveRanges;
  /// Per buffer: the input root it takes in place (it starts where that
  /// root ends, at the same offset), or -1.
  std::vector<int64_t> inPlaceOf;
  /// The most bytes of temps live during one step, 0..steps.size(), each
  /// counted with its aligned size and an in-place pair (or chain) counted
  /// once. Saturates at INT64_MAX (no valid plan has such a bound).
  int64_t lowerBoundBytes = 0;
  /// The first step at which lowerBoundBytes are live; 0 when no temp is.
  int64_t peakStep = 0;
  /// The sum of the aligned sizes of all temps: the memory of one buffer per
  /// temporary, what a plan saves is measured against. Saturates at
  /// INT64_MAX.
  int64_t oneBufferPerTempBytes = 0;
};

/// Live ranges, in-place pairs and figures of the plan in `exe` (the pairs
/// depend on its offsets: only pairs at the same offset are in place). Runs
/// in time linear in the buffers, steps and arguments (up to the sorting of
/// the arguments of launches whose kernel has in-place permissions).
MemoryAnalysis analyzeMemory(const Executable &exe);

/// Whether `exe` holds a valid plan (see above). On failure sets `error` to
/// a message that names the buffers ("buffer 5 (\"t3\") and buffer 7
/// (\"t4\") are live together at step 2 but share bytes [256, 512) of the
/// arena"), without a prefix naming the file. O(n log n) in the buffers and
/// steps.
bool checkMemoryPlan(const Executable &exe, std::string &error);

struct MemoryPlanOptions {
  /// Let outputs take the bytes of inputs where the kernels permit it.
  bool inPlace = true;
};

/// Plans the arena of `exe`: decides the in-place pairs (all those the
/// definitions allow, unless options.inPlace is false), merges each chain
/// into one allocation, and places the allocations with several heap
/// simulations (greedy by size and greedy by breadth, best fit among the
/// allocations placed before that overlap in time, in the manner of TFLite's
/// arena planner, and a best-fit linear scan in step order), keeping the
/// smallest arena. The greedy ones visit every pair of allocations live at
/// the same time, so they are skipped above 2^25 such pairs, leaving the
/// O(n log n) linear scan. Sets every temp's offset (0 for temps that occupy
/// nothing), every other buffer's offset to -1, and memory.arenaBytes (a
/// multiple of kArenaAlignment, at least the lower bound), lowerBoundBytes
/// and peakStep; leaves workspaceBytes as it is. The result passes
/// checkMemoryPlan. Expects the sum of the aligned sizes of the temps to
/// fit in int64.
void planMemory(Executable &exe, const MemoryPlanOptions &options = {});

/// A step for messages: "step 3 (launch of kernel 1 'fusec_ab12')",
/// "step 4 (matmul)", "after the last step" for steps.size(), and
/// "step 9 (out of range)" for any other step.
std::string describeStep(const Executable &exe, int64_t step);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_MEMORYPLAN_H
