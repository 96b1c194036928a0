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

def FusecAutodiff : Pass<"fusec-autodiff", "mlir::ModuleOp"> {
  let summary = "Reverse-mode automatic differentiation of loss functions";
  let description = [{
    For every function whose arguments include some marked `fusec.param`
    (a unit argument attribute) and whose first result is a float tensor of
    one element (the loss), adds right after it a function `<name><suffix>`
    (`<name>_grad` by default) with the same arguments and argument
    attributes that returns the loss followed by the gradient of the loss
    with respect to each `fusec.param` argument, in argument order, each of
    its parameter's type. The gradient function recomputes the forward
    operations the loss depends on and then runs their adjoints in reverse
    order, in each value's own element type, adding up the adjoints of
    values with several uses. Other results are ignored; a parameter the
    loss does not depend on gets a zero constant. A function with
    `fusec.param` arguments whose first result is not such a loss is left
    alone with a warning; functions without them are left alone silently.

    Every fusec operation with a derivative is supported: elementwise
    gradients of broadcast operands are summed back to the operand's shape
    (`reduce_sum` + `reshape`); data movement gets its adjoint data movement
    (a slice's adjoint scatters into zeros with `concat`, strides included);
    reductions broadcast back; `matmul` gives `g x rhs^T` and `lhs^T x g`
    summed over broadcast batch dimensions (an f32 result of f16/bf16
    operands is cast to their type first). Conventions where the derivative
    is not defined:

    * `max`/`min`: ties give the whole gradient to the lhs; a NaN operand
      gives it to the rhs. `reduce_max`/`reduce_min`: the elements equal to
      the result share the gradient equally (none if the result is NaN).
    * `abs` at 0 passes the gradient unchanged; `relu` at 0 passes nothing.
    * `pow(a, b)`: the exponent's gradient is 0 where `a <= 0`.
    * `div`: the divisor's gradient is `-(g * y) / rhs` with `y` the quotient.

    Integer and `i1` values carry no gradient; `compare`, the condition of
    `select` and casts to `i1` are piecewise constant and pass none. An
    operation on a path from a parameter to the loss that has no derivative
    (a cast from a float to `i32`/`i64`, a call, a fusion, an operation of
    another dialect) is an error at its location, and so is a gradient
    function name that is taken.
  }];
  let options = [
    Option<"suffix", "suffix", "std::string", /*default=*/"\"_grad\"",
           "Name suffix of the gradient functions">
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecMixedPrecision : Pass<"fusec-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Run f32 graphs in float16 or bfloat16 where it is safe";
  let description = [{
    Paints the f32 operations of every function to run in `precision`
    (f16 or bf16) or to stay in f32, in the manner of TensorFlow's automatic
    mixed precision. Each fusec operation is in one class:

    * **allow** (`matmul`): always low precision. Operands are cast to the
      low type and the product is returned in f32 (its f32 accumulation,
      visible in the IR as a `tensor<...xf32>` result of low-precision
      operands); consumers that run in low precision read it through one
      cast.
    * **infer** (`add`, `sub`, `mul`, `div`, `neg`, `abs`, `sqrt`, `tanh`,
      `sigmoid`, `gelu`, `relu`, `erf`): low precision when an operand is,
      unless an operand is tainted (below).
    * **deny** (`exp`, `log`, `pow`, `reciprocal`, `rsqrt`, the reductions):
      f32. Their results are *tainted*: infer and clear operations that
      read a tainted value stay in f32 and taint their results, so the
      danger propagates to consumers until an allow operation.
    * **clear** (`reshape`, `transpose`, `broadcast_to`, `concat`, `split`,
      `slice`, `select`, `max`, `min`, `compare`): no numeric effect; low
      precision when every float operand is (or is a constant exactly
      representable in the low type), so that a clear operation never
      rounds a value.

    The lists are options (`allow`, `infer`, `deny`, `clear`, operation
    names without the `fusec.` prefix): naming an operation moves it to that
    class. A reduction moved to infer or clear that sums (`reduce_sum`,
    `reduce_mean`) reads its low-precision input, accumulates and returns
    in f32, like a matmul. Other operations (`cast`, `constant`, calls,
    fusions, other dialects) keep their types.

    Casts are inserted only where painted and unpainted operations meet,
    one per value and type, shared by all its consumers, and identity pairs
    (f16 -> f32 -> f16) fold away. Function signatures keep their types
    unless `keep-io-low-precision` is set, which changes f32 arguments and
    results to the low type. The pass runs before fusion, so the casts fuse
    into the kernels around them.
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"f16\"",
           "Low-precision type: f16 or bf16">,
    ListOption<"allowOps", "allow", "std::string",
               "Operations moved to the allow class">,
    ListOption<"inferOps", "infer", "std::string",
               "Operations moved to the infer class">,
    ListOption<"denyOps", "deny", "std::string",
               "Operations moved to the deny class">,
    ListOption<"clearOps", "clear", "std::string",
               "Operations moved to the clear class">,
    Option<"keepIOLowPrecision", "keep-io-low-precision", "bool",
           /*default=*/"false",
           "Change f32 function arguments and results to the low type">
  ];
  let statistics = [
    Statistic<"numLowOps", "low-precision-ops",
              "Operations painted to run in low precision">,
    Statistic<"numCasts", "casts", "Casts inserted">
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecTrainStep : Pass<"fusec-train-step", "mlir::ModuleOp"> {
  let summary = "Build a training step: forward, backward, optimizer update";
  let description = [{
    From the loss function `func` (see `fusec-autodiff`), adds
    `<func>_train_step`, one step of training whose state is all in its
    arguments and results, so that the caller owns it:

    * arguments: the loss function's arguments, in order (the `fusec.param`
      ones are the parameters); then the optimizer state of each parameter
      in parameter order (SGD: the velocity, when `momentum` is not 0;
      Adam: the first and second moments), then Adam's step count
      (`tensor<i32>`), then, with loss scaling, the loss scale
      (`tensor<f32>`) and the count of good steps (`tensor<i32>`);
    * results: the loss, the new parameters, the new optimizer state and
      step count, and, with loss scaling, the new scale, the new count of
      good steps and whether the step was skipped (`tensor<i1>`).

    Each state argument carries `fusec.init` (its initial value, a scalar
    splat) and each result that replaces an argument carries
    `fusec.updates = <argument index>`; the loss result carries
    `fusec.loss`, the skip flag `fusec.skipped`, the scale `fusec.loss_scale`.

    The update is elementwise in f32 and fuses into few kernels. SGD:
    `v = momentum * v + g; p -= lr * v` (PyTorch's form, `g += wd * p` first
    with `weight-decay`). Adam: `m = b1 m + (1 - b1) g`,
    `v = b2 v + (1 - b2) g^2`, `p -= lr * (m / (1 - b1^t)) /
    (sqrt(v / (1 - b2^t)) + eps)`.

    With `mixed-precision` (f16 or bf16), the forward and backward
    computation is painted as by `fusec-mixed-precision`; parameters (the
    master weights), gradients as returned and the update stay f32. **Loss
    scaling** (`loss-scale`: `dynamic`, `static:VALUE` or `off`; by default
    dynamic for f16, off otherwise): the gradient's seed is the scale
    instead of 1, the gradients are divided by the scale in f32, and one
    fused check (a max of |g| over all gradients) decides whether all are
    finite. If not, the step is skipped: parameters, optimizer state and
    step count are returned bit-identical, and a dynamic scale is multiplied
    by `backoff-factor` and the count of good steps reset. After
    `growth-interval` consecutive good steps the scale is multiplied by
    `growth-factor` (unless that overflows f32) and the count restarts, as
    PyTorch's GradScaler does (the defaults are its own).
  }];
  let options = [
    Option<"func", "func", "std::string", /*default=*/"\"\"",
           "The loss function">,
    Option<"optimizer", "optimizer", "std::string", /*default=*/"\"sgd\"",
           "sgd or adam">,
    Option<"learningRate", "learning-rate", "double", /*default=*/"0.01",
           "Learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.9",
           "SGD momentum (0: plain SGD, no velocity state)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9",
           "Adam: decay of the first moment">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999",
           "Adam: decay of the second moment">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8",
           "Adam: added to the denominator">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0",
           "L2 penalty added to the gradient (wd * p)">,
    Option<"mixedPrecision", "mixed-precision", "std::string",
           /*default=*/"\"off\"",
           "Paint forward and backward: off, f16 or bf16">,
    ListOption<"allowOps", "allow", "std::string",
               "Mixed precision: operations moved to the allow class">,
    ListOption<"inferOps", "infer", "std::string",
               "Mixed precision: operations moved to the infer class">,
    ListOption<"denyOps", "deny", "std::string",
               "Mixed precision: operations moved to the deny class">,
    ListOption<"clearOps", "clear", "std::string",
               "Mixed precision: operations moved to the clear class">,
    Option<"lossScale", "loss-scale", "std::string",
           /*default=*/"\"default\"",
           "dynamic, static:VALUE, off, or default (dynamic for f16, off "
           "otherwise)">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536",
           "Dynamic loss scaling: the initial scale">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2",
           "Dynamic loss scaling: scale multiplier after growth-interval "
           "good steps">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Dynamic loss scaling: scale multiplier after a non-finite "
           "gradient">,
    Option<"growthInterval", "growth-interval", "int64_t",
           /*default=*/"2000",
           "Dynamic loss scaling: good steps before the scale grows">
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES
