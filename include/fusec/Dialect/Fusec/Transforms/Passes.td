//===- Passes.td - fusec graph optimization passes ---------*- tablegen -*-===//

#ifndef FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES
#define FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def FusecFoldConcatSplit : Pass<"fusec-fold-concat-split"> {
  let summary = "Remove data movement: fold concatenate/split/slice pairs";
  let description = [{
    Data that is concatenated and then taken apart again is never copied.
    The pass applies these rewrites, together with every operation's folder
    and canonicalization patterns (so it subsumes `canonicalize`), until
    none applies:

    * **slice of concat**: a slice that lies inside one concat operand becomes
      a slice of that operand, or the operand itself when it covers it
      exactly; a slice spanning several operands becomes a concat of slices
      of only the operands it touches. Strided slices are handled too.
    * **split of concat** along the concat axis: each piece becomes the
      operand it matches exactly, or a slice of one operand, or a concat of
      slices of the operands it spans.
    * **concat of slices**: consecutive operands that are adjacent slices
      (or split pieces) of one tensor, in order, merge into one slice of it,
      or into the tensor itself when they cover it.
    * **concat cleanups**: one-operand concats disappear (folder), zero-size
      operands are dropped, concats nested along the same axis are
      flattened.
    * **reduce of concat** over the concat axis, when the concat has no other
      use: `reduce_max`/`reduce_min` of each operand combined with `max`/
      `min` (exact); `reduce_sum` likewise with `add` for integers (exact:
      wrapping sums are associative) and, when `reassociate` is set, for
      f32 (the sum is then rounded per part, a reassociation). f16/bf16 sums
      and `reduce_mean` are left alone: partial sums in the narrow type
      would lose precision.
    * **elementwise of concats**: an elementwise op whose operands are
      concats with the same boundaries along the same axis (or operands that
      broadcast along it) is computed per piece and concatenated, moving the
      concat past the op so that a following split or slice can cancel it.
      Done only when one of those concats has no user but that op, so that
      nothing is computed twice.

    Nothing here splits a matrix product: `matmul(x, concat(wq, wk, wv))`
    followed by slices of the result stays one matmul.
  }];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"true",
           "Allow rewrites that reassociate f32 sums (reduce_sum of a "
           "concat)">
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecFuseElementwise : Pass<"fusec-fuse-elementwise",
                                "mlir::func::FuncOp"> {
  let summary = "Group operations into fusion regions, one GPU kernel each";
  let description = [{
    Decides which operations run together as one kernel and wraps each group
    in a `fusec.fusion`. Every fusible operation ends up in exactly one
    fusion (possibly alone), except reshapes left on their own, which are
    free views; `fusec.matmul` and non-fusec operations are
    kernel boundaries; constants are copied into the kernels that use them
    when small (splats, or at most `inline-constant-elements` elements).

    1. *Preparation.* `split` becomes one `slice` per piece (index
       arithmetic that fuses). A cheap producer used by several fusible
       consumers is duplicated into each when that moves fewer bytes: with
       k fusible users and no other, the copies read its inputs k times
       instead of the producer reading them once, writing its result, the
       users reading that k times, plus a launch; when other users keep the
       original, only if its inputs are no larger than its result.
       Expensive operations (`exp`, `log`, `tanh`, `erf`, `pow`, `sigmoid`,
       `gelu`) are never duplicated.
    2. *Producer-consumer fusion*, from the last operation to the first: a
       producer joins its consumer's kernel once all of its users are in
       that kernel. Elementwise operations, `compare`/`select`/`cast`,
       `broadcast_to`, `reshape`, `transpose`, `slice` and `concat` join as
       index arithmetic. A reduction starts a kernel and its producers join
       it (input fusion); an elementwise consumer of a *row* reduction (one
       reducing the innermost dimensions), or a reshape or broadcast of its
       result, takes the reduction into its kernel (epilogue fusion), at
       most one reduction per kernel. An
       expensive producer whose result is broadcast in the consumer's kernel
       is not fused (it would be recomputed per element). Kernels hold at
       most `max-ops` operations.
    3. *Multi-output fusion*: a producer kernel whose result is also needed
       elsewhere joins a consumer kernel over the same number of elements as
       an extra output; sibling kernels over the same number of elements
       that read the same input of at least `launch-cost-bytes` bytes merge.
       These merges are checked for cycles on the graph of kernels, kept in
       a topological order that every merge repairs locally (Pearce and
       Kelly), so that a check only searches the kernels between the two
       being merged; past `reachability-budget` visits the merge is refused.

    Kernels are formed so that no cycle between them is possible, and every
    decision has a reason: `fusec --emit=report` prints, per function, the
    kernels before and after fusion, each fusion's operations and bytes, and
    why each remaining producer-consumer edge was not fused.
  }];
  let options = [
    Option<"launchCostBytes", "launch-cost-bytes", "int64_t",
           /*default=*/"16384",
           "Cost of a kernel launch, in bytes of memory traffic">,
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"256",
           "Most operations in one fusion">,
    Option<"inlineConstantElements", "inline-constant-elements", "int64_t",
           /*default=*/"16",
           "Constants with at most this many elements are copied into "
           "kernels">,
    Option<"duplicate", "duplicate", "bool", /*default=*/"true",
           "Duplicate cheap producers into several kernels when it saves "
           "traffic">,
    Option<"multiOutput", "multi-output", "bool", /*default=*/"true",
           "Form multi-output fusions">,
    Option<"reachabilityBudget", "reachability-budget", "int64_t",
           /*default=*/"4096",
           "Visits allowed per cycle check before a merge is refused">
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES
