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

    * **data movement sinks** below what reads it, when nothing else reads
      it: an elementwise op of reshapes of one shape (other operands
      broadcasting along trailing dimensions the reshape keeps) runs before
      the reshape, so a lowered convolution's relu and bias join its
      matmul's epilogue; an elementwise op of transposes by one
      permutation (other operands constants, transposed back at compile
      time), a reduction of a transpose and a concatenation of transposes
      by one permutation run before the transpose, so
      the transposes an NCHW model puts around each NHWC convolution meet
      and cancel; a transpose that moves only dimensions of size 1 is a
      reshape.

    Nothing here splits a matrix product: `matmul(x, concat(wq, wk, wv))`
    followed by slices of the result stays one matmul.

    Options: [fold](FusecOptions.md#fold).
  }];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecFuseElementwise : Pass<"fusec-fuse-elementwise",
                                "mlir::func::FuncOp"> {
  let summary = "Group operations into fusion regions, one GPU kernel each";
  let description = [{
    Decides which operations run together as one kernel and wraps each group
    in a `fusec.fusion` whose `kind` (loop, row_reduction, reduction,
    matmul) says what it becomes. Every fusible operation ends up in exactly
    one fusion (possibly alone), except reshapes left on their own, which
    are free views; non-fusec operations are kernel boundaries; constants
    are copied into the kernels that use them when small (splats, or at
    most `fusion-inline-constant-elements` elements).

    1. *Preparation.* `split` becomes one `slice` per piece (index
       arithmetic that fuses). An integer `matmul` (which cuBLASLt does not
       compute) becomes a broadcast `mul` summed over K, which fuses into
       one reduction kernel; the result is exact, since integer sums wrap
       in any order. A cheap producer used by several fusible consumers is
       duplicated into each when that moves fewer bytes: with k fusible
       users and no other, the copies read its inputs k times instead of the
       producer reading them once, writing its result, the users reading
       that k times, plus a launch; when other users keep the original, only
       if its inputs are no larger than its result. Expensive operations
       (`exp`, `log`, `tanh`, `erf`, `pow`, `sigmoid`, `gelu`) are never
       duplicated.
    2. *Matmul steps* (`fusion-matmul-epilogues`): each float `matmul`
       becomes a `matmul` fusion, one cuBLASLt call, that absorbs what
       cuBLASLt computes with the product: a transpose of the last two
       dimensions of an operand (its transpose flag, when the matmul is the
       transpose's only user), then, following the product through
       operations that are each the only user of the previous one, a cast
       of an f32 product to the operands' f16/bf16 type, an `add` of a bias
       broadcast along the rows (the BIAS epilogue), `relu` or the tanh form
       of `gelu` (RELU_BIAS, GELU_BIAS; the erf form has no epilogue and
       fuses into its consumer's kernel), and a final cast to the operands'
       f16/bf16 type (a D type other than the f32 compute type). Nothing
       else joins a matmul step.
    3. *Producer-consumer fusion*, from the last operation to the first: a
       producer joins its consumer's kernel once all of its users are in
       that kernel. Elementwise operations, `compare`/`select`/`cast`,
       `broadcast_to`, `reshape`, `transpose`, `slice` and `concat` join as
       index arithmetic. A reduction starts a kernel and its producers join
       it (input fusion); an elementwise consumer of a reduction, or a
       reshape or broadcast of its result, takes the reduction into its
       kernel (epilogue fusion) when it iterates over the reduction's
       result (computed per result: a depthwise convolution's bias and
       activation) or, for a *row* reduction (one reducing the innermost
       dimensions, rows of more than one element), over its input (a
       second pass over the row: softmax's division); at most one
       reduction per kernel. An
       expensive producer whose result is broadcast in the consumer's kernel
       is not fused (it would be recomputed per element). Kernels hold at
       most `fusion-max-ops` operations.
    4. *Multi-output fusion*: a producer kernel whose result is also needed
       elsewhere joins a consumer kernel over the same number of elements as
       an extra output; sibling kernels over the same number of elements
       that read the same input of at least `fusion-launch-cost-bytes` bytes
       merge. These merges are checked for cycles on the graph of kernels,
       kept in a topological order that every merge repairs locally (Pearce
       and Kelly), so that a check only searches the kernels between the two
       being merged; past `fusion-reachability-budget` visits the merge is
       refused.

    Kernels are formed so that no cycle between them is possible, and every
    decision has a reason: `fusec --emit=report` prints, per function, the
    kernels before and after fusion, each fusion's operations and bytes, what
    each matmul step absorbed and why it stops there, and why each remaining
    producer-consumer edge was not fused.

    Options: [fusion](FusecOptions.md#fusion).
  }];
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

    Options: [autodiff](FusecOptions.md#autodiff).
  }];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecLowerWindows : Pass<"fusec-lower-windows", "mlir::func::FuncOp"> {
  let summary = "Lower convolutions and pooling to patches, matmuls and "
                "reductions";
  let description = [{
    Rewrites `conv2d`, `max_pool2d` and `avg_pool2d` into operations that
    fusion and code generation handle, so that every backend (the
    interpreter, the host device, a GPU) runs a convolution the same way:

    * padding becomes a `pad` (zeros; `-inf` or the smallest integer for
      max pooling) and the windows a `patches` (im2col): both index
      arithmetic, fused into the kernel that reads them, so the padded
      tensor is never written;
    * a convolution with one group is a matmul of the patches `[N*OH*OW,
      KH*KW*C]` with the filter `[KH*KW*C, F]` (a 1x1 convolution with unit
      strides reads the input itself), the bias its epilogue; the patches
      are written once by a gather kernel (implicit GEMM would read them in
      the matmul; cuBLASLt cannot);
    * a depthwise convolution (one input channel per group) is a product
      with the broadcast filter summed over the window: a reduction kernel
      that reads the input directly (computed in f32 for f16/bf16 inputs);
    * other grouped convolutions are a batched matmul over the groups;
    * max pooling is a `reduce_max` over the window axes, average pooling a
      `reduce_mean` (a `reduce_sum` divided by the per-position count of
      elements inside the input when padding does not count).

    The results equal the operations' own reference kernels up to the order
    of rounding (products of depthwise convolutions round to the compute
    type; average pooling without the padding rounds twice). fusec runs it
    first, before mixed precision and training (`--no-lower-windows` keeps
    the operations for the interpreter's direct kernels).
  }];
  let dependentDialects = ["::fusec::FusecDialect"];
  let statistics = [
    Statistic<"numLowered", "lowered", "Window operations lowered">
  ];
}

def FusecDemoteF64 : Pass<"fusec-demote-f64", "mlir::func::FuncOp"> {
  let summary = "Compute f64 operations in f32";
  let description = [{
    Rewrites every fusec operation of a function that computes in f64 to
    compute in f32, as PyTorch computes on f32 inputs: torch-mlir exports
    `nn.LayerNorm` (and other f32 models) with an f32 -> f64 cast and the
    mean and variance in f64, which a GPU computes at a fraction of the f32
    rate. f64 constants are rounded to f32 once (to nearest even); casts
    between f32 and f64 disappear. The function's signature is kept: f64
    arguments are cast to f32 where the body starts, f64 results back to
    f64 at the return, and so are the f64 operands and results of
    operations of other dialects (calls).

    The results then differ from the f64 computation by f32 rounding: about
    1e-7 relative for a layer norm's statistics, what the framework computes
    itself on f32. Each function with demoted operations gets a remark with
    their number. fusec runs it with `--demote-f64` (off by default: f64
    computes in f64).
  }];
  let dependentDialects = ["::fusec::FusecDialect"];
  let statistics = [
    Statistic<"numDemoted", "demoted", "Operations rewritten from f64 to f32">
  ];
}

def FusecMixedPrecision : Pass<"fusec-mixed-precision", "mlir::ModuleOp"> {
  let summary = "Run f32 graphs in float16 or bfloat16 where it is safe";
  let description = [{
    Paints the f32 operations of every function to run in `mixed-precision`
    (f16 or bf16; `off`, the default, paints nothing) or to stay in f32, in
    the manner of TensorFlow's automatic mixed precision. Each fusec operation is in one class:

    * **allow** (`matmul`, `conv2d`): always low precision. Operands are
      cast to the low type and the product is returned in f32 (its f32
      accumulation,
      visible in the IR as a `tensor<...xf32>` result of low-precision
      operands); consumers that run in low precision read it through one
      cast.
    * **infer** (`add`, `sub`, `mul`, `div`, `neg`, `abs`, `sqrt`, `tanh`,
      `sigmoid`, `gelu`, `relu`, `erf`, `atan`, `floor`, `ceil`, `round`,
      `trunc`):
      low precision when an operand is, unless an operand is tainted
      (below).
    * **deny** (`exp`, `log`, `pow`, `reciprocal`, `rsqrt`, `sin`, `cos`,
      the reductions, `avg_pool2d`):
      f32. Their results are *tainted*: infer and clear operations that
      read a tainted value stay in f32 and taint their results, so the
      danger propagates to consumers until an allow operation.
    * **clear** (`reshape`, `transpose`, `broadcast_to`, `concat`, `split`,
      `slice`, `pad`, `gather`, `patches`, `select`, `max`, `min`,
      `compare`, `max_pool2d`): no numeric effect; low
      precision when every float operand is (or is a constant exactly
      representable in the low type), so that a clear operation never
      rounds a value.

    The lists are options (`mixed-precision-allow`, `-infer`, `-deny`,
    `-clear`, operation
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

    Options: [mixed precision](FusecOptions.md#mixed-precision).
  }];
  let statistics = [
    Statistic<"numLowOps", "low-precision-ops",
              "Operations painted to run in low precision">,
    Statistic<"numCasts", "casts", "Casts inserted">
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecAddLoss : Pass<"fusec-add-loss", "mlir::ModuleOp"> {
  let summary = "Add a loss function to a model that has none";
  let description = [{
    An exported model computes its outputs, not a loss. This pass adds the
    loss function `loss` that training needs: the model function's
    arguments (its parameters stay `fusec.param`) followed by a labels
    argument named `labels`, a call of the model, and as results the loss
    (`fusec.name = "loss"`), then, for the classification losses, the
    accuracy (`"accuracy"`, a metric), then the model's state updates
    (results with `fusec.updates`, such as running statistics). When the
    model function has an evaluation twin (`fusec.eval`, as the ONNX import
    for training makes), `loss_eval` computes the same loss and metrics
    from the twin, and `loss` names it as its own twin (validation runs
    it). The model functions become private: once inlined, they are gone.

    The losses, each the mean over the output's leading dimensions (every
    position of a sequence counts as a sample), computed in f32:

    * `softmax-cross-entropy`: logits `[..., C]`, labels of the same shape
      (one-hot or probabilities): `-sum(labels * log_softmax(logits))`.
    * `sparse-softmax-cross-entropy`: logits `[..., C]`, `i64` class labels
      `[...]`: `-log_softmax(logits)[label]` (a label outside `[0, C)`
      contributes 0).
    * `cross-entropy` and `sparse-cross-entropy`: the same from
      probabilities (a softmax's output), as Keras computes them: the
      probabilities divided by their sum (one-hot labels) and clipped to
      `[1e-7, 1 - 1e-7]` before the logarithm.
    * `mse`: `(output - labels)^2` over every element.
    * `binary-cross-entropy`: probabilities and 0/1 labels of the same
      shape, clipped as Keras does:
      `-(labels * log(p) + (1 - labels) * log(1 - p))`.

    Accuracy: the fraction of samples whose largest output (the first on a
    tie) is the label's class (the largest label, for one-hot labels); for
    `binary-cross-entropy`, of elements on the label's side of 0.5.

    Options: [training](FusecOptions.md#training) (`loss`, `loss-output`,
    `labels`, `loss-of`).
  }];
  let dependentDialects = ["::fusec::FusecDialect",
                           "::mlir::func::FuncDialect"];
}

def FusecRecomputeActivations
    : Pass<"fusec-recompute-activations", "mlir::func::FuncOp"> {
  let summary = "Recompute cheap forward values in a training step's backward pass";
  let description = [{
    A training step (`fusec-train-step`) keeps every forward value its
    backward pass reads alive from the forward pass to there: the
    activations that bound the batch that fits in memory. For each forward
    value a backward operation (`fusec.backward`) reads, computed by a chain
    of cheap elementwise operations (and reshapes and broadcasts) from
    values the backward pass keeps anyway (arguments, constants, other kept
    values), the chain is cloned where the backward pass first reads the
    value, and the backward pass reads the copy: the forward value then
    dies in the forward pass, and fusion puts the copy in the backward
    kernels that read it. A batch normalization followed by a ReLU, for
    example, keeps only the convolution's output. Chains of more than 16
    operations, and chains that would keep a value alive that is not kept
    already, are left as they are.

    The function gets `fusec.recomputed = <operations cloned>`, which the
    report prints. `fusec --train` runs the pass when the step's memory
    plan exceeds `--memory-limit` (`--recompute=auto`), always
    (`--recompute=on`) or never (`--recompute=off`).
  }];
  let statistics = [
    Statistic<"numRecomputed", "recomputed-values",
              "Forward values the backward pass recomputes">,
  ];
  let dependentDialects = ["::fusec::FusecDialect"];
}

def FusecTrainStep : Pass<"fusec-train-step", "mlir::ModuleOp"> {
  let summary = "Build a training step: forward, backward, optimizer update";
  let description = [{
    From the loss function `train` (see `fusec-autodiff`), adds
    `<train>_train_step`, one step of training whose state is all in its
    arguments and results, so that the caller owns it:

    * arguments: the loss function's arguments, in order (the `fusec.param`
      ones are the parameters); then the optimizer state of each parameter
      in parameter order (SGD: the velocity, when `momentum` is not 0;
      Adam: the first and second moments), then Adam's step count
      (`tensor<i32>`), then, with loss scaling, the loss scale
      (`tensor<f32>`) and the count of good steps (`tensor<i32>`);
    * results: the loss, the new parameters, the new optimizer state and
      step count, and, with loss scaling, the new scale, the new count of
      good steps and whether the step was skipped (`tensor<i1>`); then the
      loss function's other results (metrics, such as an accuracy), computed
      by the same forward pass as the loss, each carrying
      `fusec.metric = <its result index in the loss function>`.

    Each state argument carries `fusec.state` (its role: `adam.m`, `adam.v`,
    `sgd.velocity`, `adam.step`, `loss_scale.scale`,
    `loss_scale.good_steps`), `fusec.init` (its initial value, a scalar
    splat) and, when it belongs to a parameter, `fusec.state_of = <the
    parameter's argument index>`; each result that replaces an argument carries
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
    by `loss-scale-backoff` and the count of good steps reset. After
    `loss-scale-interval` consecutive good steps the scale is multiplied by
    `loss-scale-growth` (unless that overflows f32) and the count restarts, as
    PyTorch's GradScaler does (the defaults are its own).

    Options: [training](FusecOptions.md#training) and
    [mixed precision](FusecOptions.md#mixed-precision).
  }];
  let dependentDialects = ["::fusec::FusecDialect"];
}

#endif // FUSEC_DIALECT_FUSEC_TRANSFORMS_PASSES
