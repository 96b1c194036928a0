//===- Compile.cpp - A function to an executable artifact -----------------===//

#include "fusec/Codegen/Compile.h"
#include "fusec/Codegen/Nvrtc.h"
#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Runtime/Conv.h"
#include "fusec/Runtime/Matmul.h"
#include "fusec/Runtime/MemoryPlan.h"
#include "fusec/Support/Checked.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringMap.h"

#include <atomic>
#include <chrono>
#include <thread>

using namespace mlir;
using namespace fusec;

std::string CompiledFunction::cudaSource() const {
  std::string s = std::string(cudaPrelude());
  for (const KernelSource &k : kernels)
    s += "\n" + k.body;
  return s;
}

std::string CompiledFunction::cpuSource() const {
  std::string s = cpuPrelude();
  for (const KernelSource &k : kernels)
    s += "\n" + k.cpuBody;
  return s;
}

std::string fusec::kernelCacheKey(const std::string &source,
                                  const std::vector<std::string> &options,
                                  const std::string &nvrtcIdentity) {
  std::string text = "fusec kernel cache v1\nnvrtc " + nvrtcIdentity + "\n";
  for (const std::string &o : options)
    text += o + "\n";
  text += source;
  return KernelCache::hashKey(text);
}

namespace {

/// Builds the plan of one function.
class Planner {
public:
  Planner(func::FuncOp func, const CompileOptions &options)
      : func(func), options(options) {}

  FailureOr<CompiledFunction> run();

private:
  FailureOr<int64_t> addBuffer(Value v, rt::BufferKind kind, int64_t index,
                               std::string name);
  LogicalResult planFusion(FusionOp fusion);
  LogicalResult planMatmulFusion(FusionOp fusion);
  LogicalResult planSplitMatmulFusion(FusionOp fusion, MatmulFusionForm form);
  FailureOr<std::optional<rt::ConvStep>> planConvWindows(FusionOp fusion,
                                                         ConvWindows windows);
  /// The step's operands: the buffers of the fusion's inputs the matmul
  /// reads, through its transposes.
  rt::MatmulStep matmulOperands(FusionOp fusion, MatmulFusionForm &form);
  LogicalResult addMatmulStep(Operation *at, rt::MatmulStep step);
  LogicalResult planFill(ConstantOp constant);
  LogicalResult planUnfused(FusionOp fusion);
  LogicalResult planSingle(Operation *op, Location loc);
  static bool isLargeSplat(ConstantOp constant) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    return dense && dense.isSplat() && dense.getNumElements() > 64;
  }

  func::FuncOp func;
  const CompileOptions &options;
  CompiledFunction out;
  llvm::DenseMap<Value, int64_t> bufferOf;
  llvm::StringMap<int64_t> kernelByName;
  int64_t temps = 0;
};

FailureOr<int64_t> Planner::addBuffer(Value v, rt::BufferKind kind,
                                      int64_t index, std::string name) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  std::optional<DType> dtype =
      type ? toDType(type.getElementType()) : std::nullopt;
  if (!type || !type.hasStaticShape() || !dtype) {
    Location loc = v.getLoc();
    return emitError(loc) << "code generation needs a statically shaped "
                             "tensor of f32, f16, bf16, f64, i1, i32 or i64, "
                             "not "
                          << v.getType();
  }
  std::optional<int64_t> count =
      checkedNumElements(Shape(type.getShape().begin(), type.getShape().end()));
  if (!count || !checkedMul(*count, int64_t(dtypeSize(*dtype)))) {
    Location loc = v.getLoc();
    return emitError(loc) << "code generation: " << v.getType()
                          << " has more than INT64_MAX bytes";
  }
  rt::BufferDesc b;
  b.kind = kind;
  b.dtype = *dtype;
  b.shape.assign(type.getShape().begin(), type.getShape().end());
  b.index = index;
  b.name = std::move(name);
  rt::Executable &exe = out.executable;
  exe.buffers.push_back(std::move(b));
  int64_t id = int64_t(exe.buffers.size()) - 1;
  bufferOf[v] = id;
  return id;
}

/// A kernel's code without its first line, the comment naming it with its
/// fusion's operation count: fusions of different sizes (one holds a
/// reshape that generates nothing) can share one kernel.
static StringRef withoutHeader(StringRef body) {
  return body.substr(std::min(body.size(), body.find('\n')));
}

LogicalResult Planner::planFusion(FusionOp fusion) {
  // A fusion the emitter cannot make one kernel of (hand-written ones can
  // be anything the verifier accepts) runs as one kernel per operation.
  std::string why;
  FailureOr<KernelSource> source = [&] {
    ScopedDiagnosticHandler capture(fusion.getContext(), [&](Diagnostic &d) {
      why = d.str();
      return success();
    });
    return emitKernel(fusion, options.target, options.codegen);
  }();
  if (failed(source)) {
    int64_t computing =
        llvm::count_if(fusion.getBody().front().without_terminator(),
                       [](Operation &op) { return !isa<ConstantOp>(op); });
    if (computing <= 1)
      return fusion.emitError() << why; // Already a single operation.
    fusion.emitWarning() << why << "; compiling it as one kernel per "
                         << "operation";
    return planUnfused(fusion);
  }
  rt::Executable &exe = out.executable;
  auto [it, inserted] =
      kernelByName.try_emplace(source->name, int64_t(exe.kernels.size()));
  if (inserted) {
    rt::KernelDesc k;
    k.name = source->name;
    k.kind = source->kind;
    k.numInputs = source->numInputs;
    k.numOutputs = source->numOutputs;
    k.params = source->params;
    k.inPlace = source->inPlace;
    k.work = source->work;
    k.rowLength = source->rowLength;
    k.vectorWidth = source->vectorWidth;
    k.ptxIndex = int64_t(exe.kernels.size());
    exe.kernels.push_back(std::move(k));
    out.kernels.push_back(*source);
    out.kernelOrigins.push_back(fusion);
    FailureOr<std::string> cpu =
        emitCpuKernel(fusion, *source, options.codegen);
    if (failed(cpu))
      return failure();
    out.kernels.back().cpuBody = std::move(*cpu);
  } else if (withoutHeader(out.kernels[size_t(it->second)].body) !=
             withoutHeader(source->body)) {
    return fusion.emitError() << "internal error: two different kernels "
                                 "hash to the name "
                              << source->name;
  } else {
    // The same code reads and writes the same elements, which is at most
    // what each of its fusions' tensors hold (a slice of the first rows
    // reads as much as a tensor of those rows): keep the smallest.
    std::vector<rt::KernelParam> &params = exe.kernels[it->second].params;
    for (size_t p = 0; p < params.size(); ++p)
      params[p].elements =
          std::min(params[p].elements, source->params[p].elements);
  }

  rt::LaunchStep launch;
  launch.kernel = it->second;
  launch.gridSize = source->gridSize;
  launch.blockSize = source->blockSize;
  for (Value input : fusion.getInputs())
    launch.args.push_back(bufferOf.lookup(input));
  for (Value result : fusion.getResults()) {
    FailureOr<int64_t> id = addBuffer(result, rt::BufferKind::Temp, -1,
                                      "t" + std::to_string(temps++));
    if (failed(id))
      return failure();
    launch.args.push_back(*id);
  }
  if (llvm::all_of(fusion.getResults(), [](Value r) {
        return cast<RankedTensorType>(r.getType()).getNumElements() == 0;
      }))
    return success(); // Nothing to compute: every result is empty.
  rt::Step step;
  step.kind = rt::Step::Kind::Launch;
  step.launch = std::move(launch);
  exe.steps.push_back(std::move(step));
  ++out.stats.launches;
  return success();
}

/// A matmul step, checked against what cuBLASLt computes: a step the
/// checker refuses here is a fusion the verifier should have refused.
LogicalResult Planner::addMatmulStep(Operation *at, rt::MatmulStep step) {
  std::string why;
  if (!rt::checkMatmulStep(out.executable, step, why))
    return at->emitError() << "cannot compile this matrix product for "
                              "cuBLASLt: "
                           << why;
  rt::Step s;
  s.kind = rt::Step::Kind::Matmul;
  s.matmul = step;
  out.executable.steps.push_back(s);
  ++out.stats.matmuls;
  return success();
}

/// A matmul fusion: one cuBLASLt call reading its inputs through the
/// transpose flags and computing its chain as the epilogue.
rt::MatmulStep Planner::matmulOperands(FusionOp fusion,
                                       MatmulFusionForm &form) {
  auto buffer = [&](Value v) {
    return bufferOf.lookup(
        fusion.getInputs()[cast<BlockArgument>(v).getArgNumber()]);
  };
  rt::MatmulStep step;
  step.transposeA = bool(form.transposeLhs);
  step.transposeB = bool(form.transposeRhs);
  // (Convolution windows get their buffer from their gather kernel.)
  if (!form.windows)
    step.a = buffer(step.transposeA ? form.transposeLhs.getInput()
                                    : form.matmul.getLhs());
  step.b = buffer(step.transposeB ? form.transposeRhs.getInput()
                                  : form.matmul.getRhs());
  if (Value bias = form.chain.getBias())
    step.bias = buffer(bias);
  return step;
}

LogicalResult Planner::planMatmulFusion(FusionOp fusion) {
  std::string why;
  std::optional<MatmulFusionForm> form = matchMatmulFusion(fusion, why);
  if (!form)
    return fusion.emitError() << why;
  // cuBLASLt computes the epilogue in f32 and rounds once. Operations
  // after a cast of the product to f16/bf16 are rounded after each one by
  // the reference; with fp16RoundEachOp, which promises that rounding, they
  // run as a kernel of their own after a plain matmul step.
  bool lowEpilogue = false, cast = false;
  for (Operation *op : form->chain.getOps()) {
    lowEpilogue |= cast;
    cast |= isa<CastOp>(op);
  }
  if (options.codegen.fp16RoundEachOp && lowEpilogue)
    return planSplitMatmulFusion(fusion, *form);
  rt::MatmulStep step = matmulOperands(fusion, *form);
  bool bias = step.bias >= 0;
  switch (form->chain.getActivation()) {
  case EpilogueActivation::None:
    step.epilogue = bias ? rt::MatmulEpilogue::Bias : rt::MatmulEpilogue::None;
    break;
  case EpilogueActivation::Relu:
    step.epilogue =
        bias ? rt::MatmulEpilogue::ReluBias : rt::MatmulEpilogue::Relu;
    break;
  case EpilogueActivation::Gelu:
    step.epilogue =
        bias ? rt::MatmulEpilogue::GeluBias : rt::MatmulEpilogue::Gelu;
    break;
  }
  std::optional<rt::ConvStep> conv;
  if (form->windows) {
    FailureOr<std::optional<rt::ConvStep>> gathered =
        planConvWindows(fusion, *form->windows);
    if (failed(gathered))
      return failure();
    conv = *gathered;
    step.a = conv ? conv->product.a : bufferOf.lookup(form->matmul.getLhs());
  }
  FailureOr<int64_t> c = addBuffer(fusion.getResult(0), rt::BufferKind::Temp,
                                   -1, "t" + std::to_string(temps++));
  if (failed(c))
    return failure();
  step.c = *c;
  if (!conv)
    return addMatmulStep(fusion, step);
  conv->product = step;
  rt::Executable &exe = out.executable;
  if (!rt::checkMatmulStep(exe, step, why) ||
      !rt::checkConvStep(exe, *conv, /*accessesOfWindows=*/1, why))
    return fusion.emitError() << "cannot compile this convolution: " << why;
  rt::Step s;
  s.kind = rt::Step::Kind::Conv;
  s.conv = *conv;
  exe.steps.push_back(std::move(s));
  ++out.stats.matmuls;
  return success();
}

/// The gather kernel of a convolution's windows, as the step's fallback:
/// its launch and the windows' buffer in a ConvStep whose product is still
/// to be filled in. With nothing to gather (empty windows) no launch is
/// planned: the windows stay a value of their own (bufferOf), read by a
/// plain matmul step.
FailureOr<std::optional<rt::ConvStep>> Planner::planConvWindows(FusionOp fusion,
                                                                ConvWindows w) {
  Value input = fusion.getInputs()[cast<BlockArgument>(w.input).getArgNumber()];
  Value windows = w.reshape.getResult();
  OpBuilder b(fusion.getContext());
  auto gather =
      FusionOp::create(b, fusion.getLoc(), TypeRange{windows.getType()},
                       ValueRange{input}, FusionKind::Loop);
  Block *block = new Block();
  gather.getBody().push_back(block);
  b.setInsertionPointToStart(block);
  IRMapping map;
  map.map(w.input, block->addArgument(input.getType(), fusion.getLoc()));
  for (Operation *op : {w.pad.getOperation(), w.patches.getOperation(),
                        w.reshape.getOperation()})
    if (op)
      b.clone(*op, map);
  YieldOp::create(b, fusion.getLoc(), ValueRange{map.lookup(windows)});
  rt::Executable &exe = out.executable;
  size_t steps = exe.steps.size();
  LogicalResult planned = planFusion(gather);
  std::optional<rt::ConvStep> conv;
  if (succeeded(planned)) {
    int64_t buffer = bufferOf.lookup(gather.getResult(0));
    bufferOf.erase(gather.getResult(0));
    if (!out.kernelOrigins.empty() && out.kernelOrigins.back() == gather)
      out.kernelOrigins.back() = fusion;
    if (exe.steps.size() == steps) {
      bufferOf[windows] = buffer;
    } else {
      conv.emplace();
      conv->gather = std::move(exe.steps.back().launch);
      exe.steps.pop_back();
      --out.stats.launches;
      conv->product.a = buffer;
      conv->input = bufferOf.lookup(input);
      conv->window = w.patches.getWindow2D();
      if (w.pad)
        conv->window.padding = {w.pad.getLow()[1], w.pad.getHigh()[1],
                                w.pad.getLow()[2], w.pad.getHigh()[2]};
    }
  }
  gather->destroy();
  if (failed(planned))
    return failure();
  return conv;
}

/// A matmul fusion as a plain matmul step whose product feeds a loop
/// kernel computing the chain.
LogicalResult Planner::planSplitMatmulFusion(FusionOp fusion,
                                             MatmulFusionForm form) {
  rt::MatmulStep step = matmulOperands(fusion, form);
  step.bias = -1;
  Value product = form.matmul.getResult();
  FailureOr<int64_t> c = addBuffer(product, rt::BufferKind::Temp, -1,
                                   "t" + std::to_string(temps++));
  if (failed(c))
    return failure();
  step.c = *c;
  if (failed(addMatmulStep(fusion, step)))
    return failure();
  // The chain, alone in a loop fusion reading the product and the bias.
  OpBuilder b(fusion.getContext());
  SmallVector<Value> inputs = {product};
  Value bias = form.chain.getBias();
  if (bias)
    inputs.push_back(
        fusion.getInputs()[cast<BlockArgument>(bias).getArgNumber()]);
  auto chain = FusionOp::create(b, fusion.getLoc(), fusion.getResultTypes(),
                                inputs, FusionKind::Loop);
  Block *block = new Block();
  chain.getBody().push_back(block);
  b.setInsertionPointToStart(block);
  IRMapping map;
  map.map(product, block->addArgument(product.getType(), fusion.getLoc()));
  if (bias)
    map.map(bias, block->addArgument(bias.getType(), fusion.getLoc()));
  if (CastOp biasCast = form.chain.getBiasCast())
    b.clone(*biasCast, map);
  for (Operation *op : form.chain.getOps())
    b.clone(*op, map);
  YieldOp::create(b, fusion.getLoc(),
                  ValueRange{map.lookup(form.chain.value())});
  LogicalResult result = planFusion(chain);
  if (succeeded(result)) {
    bufferOf[fusion.getResult(0)] = bufferOf.lookup(chain.getResult(0));
    bufferOf.erase(chain.getResult(0));
    if (!out.kernelOrigins.empty() && out.kernelOrigins.back() == chain)
      out.kernelOrigins.back() = fusion;
  }
  chain->destroy();
  return result;
}

/// A fusion holding a copy of `op` alone (with the constants it reads),
/// planned as a kernel whose results stand for op's results.
LogicalResult Planner::planSingle(Operation *op, Location loc) {
  OpBuilder b(op->getContext());
  SmallVector<Value> inputs;
  for (Value v : op->getOperands())
    if (!v.getDefiningOp<ConstantOp>() && !llvm::is_contained(inputs, v))
      inputs.push_back(v);
  auto single =
      FusionOp::create(b, loc, op->getResultTypes(), inputs,
                       isReduction(op) ? reductionKind(op) : FusionKind::Loop);
  Block *block = new Block();
  single.getBody().push_back(block);
  b.setInsertionPointToStart(block);
  IRMapping map;
  for (Value v : inputs)
    map.map(v, block->addArgument(v.getType(), loc));
  for (Value v : op->getOperands())
    if (auto constant = v.getDefiningOp<ConstantOp>();
        constant && !map.contains(v))
      map.map(v, b.clone(*constant)->getResult(0));
  Operation *copy = b.clone(*op, map);
  YieldOp::create(b, loc, copy->getResults());
  LogicalResult result = planFusion(single);
  if (succeeded(result))
    for (auto [mine, theirs] :
         llvm::zip(op->getResults(), single.getResults())) {
      bufferOf[mine] = bufferOf.lookup(theirs);
      bufferOf.erase(theirs);
    }
  if (!out.kernelOrigins.empty() && out.kernelOrigins.back() == single)
    out.kernelOrigins.back() = op;
  single->destroy();
  return result;
}

LogicalResult Planner::planUnfused(FusionOp fusion) {
  Block &body = fusion.getBody().front();
  for (auto [arg, input] : llvm::zip(body.getArguments(), fusion.getInputs()))
    bufferOf[arg] = bufferOf.lookup(input);
  for (Operation &op : body.without_terminator()) {
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      // Copied into the kernels that read it; a yielded one is written by
      // a kernel of its own.
      if (llvm::any_of(constant->getUsers(),
                       [](Operation *user) { return isa<YieldOp>(user); }) &&
          failed(planSingle(constant, constant.getLoc())))
        return failure();
      continue;
    }
    if (failed(planSingle(&op, op.getLoc())))
      return failure();
  }
  for (auto [result, value] :
       llvm::zip(fusion.getResults(), fusion.getYield().getValues()))
    bufferOf[result] = bufferOf.lookup(value);
  return success();
}

/// A splat constant that is not copied into a kernel (a result, a matmul
/// operand) is written by a kernel of its own rather than stored in the
/// artifact: a fusion holding only the constant.
LogicalResult Planner::planFill(ConstantOp constant) {
  OpBuilder b(constant.getContext());
  auto fusion =
      FusionOp::create(b, constant.getLoc(), TypeRange{constant.getType()},
                       ValueRange{}, FusionKind::Loop);
  Block *block = new Block();
  fusion.getBody().push_back(block);
  b.setInsertionPointToStart(block);
  Operation *copy = b.clone(*constant);
  YieldOp::create(b, constant.getLoc(), copy->getResults());
  LogicalResult result = planFusion(fusion);
  if (succeeded(result)) {
    // Its buffer stands for the constant's value.
    bufferOf[constant] = bufferOf.lookup(fusion.getResult(0));
    bufferOf.erase(fusion.getResult(0));
    if (!out.kernelOrigins.empty() && out.kernelOrigins.back() == fusion)
      out.kernelOrigins.back() = constant;
  }
  fusion->destroy();
  return result;
}

FailureOr<CompiledFunction> Planner::run() {
  rt::Executable &exe = out.executable;
  exe.entry = func.getSymName().str();
  exe.arch = options.target.arch;
  if (func.isExternal())
    return func.emitError() << "cannot compile a function without a body";
  for (BlockArgument arg : func.getArguments()) {
    FailureOr<int64_t> id =
        addBuffer(arg, rt::BufferKind::Input, arg.getArgNumber(),
                  "arg" + std::to_string(arg.getArgNumber()));
    if (failed(id))
      return failure();
    exe.inputs.push_back(*id);
  }
  int64_t views = 0;
  for (Operation &op : func.getBody().front()) {
    LogicalResult result = success();
    if (auto constant = dyn_cast<ConstantOp>(op);
        constant && isLargeSplat(constant)) {
      result = planFill(constant);
    } else if (constant) {
      EvalContext ctx;
      Buffer data = elementsToBuffer(constant.getValue(), ctx);
      if (!data)
        return constant.emitError() << "cannot read this constant's data";
      int64_t index = int64_t(exe.constants.size());
      exe.constants.emplace_back(static_cast<const char *>(data.data()),
                                 data.sizeInBytes());
      result = addBuffer(constant, rt::BufferKind::Constant, index,
                         "const" + std::to_string(index));
    } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
      // A view: the same bytes under another shape, of the buffer that
      // owns them.
      int64_t source = bufferOf.lookup(reshape.getInput());
      if (exe.buffers[size_t(source)].kind == rt::BufferKind::Alias)
        source = exe.buffers[size_t(source)].index;
      result = addBuffer(reshape, rt::BufferKind::Alias, source,
                         "view" + std::to_string(views++));
    } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
      FailureOr<int64_t> c = addBuffer(matmul, rt::BufferKind::Temp, -1,
                                       "t" + std::to_string(temps++));
      if (failed(c))
        return failure();
      rt::MatmulStep step;
      step.a = bufferOf.lookup(matmul.getLhs());
      step.b = bufferOf.lookup(matmul.getRhs());
      step.c = *c;
      result = addMatmulStep(matmul, step);
    } else if (auto fusion = dyn_cast<FusionOp>(op)) {
      result = fusion.getKind() == FusionKind::Matmul ? planMatmulFusion(fusion)
                                                      : planFusion(fusion);
    } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value v : ret.getOperands())
        exe.outputs.push_back(bufferOf.lookup(v));
    } else if (auto call = dyn_cast<func::CallOp>(op)) {
      return call.emitError()
             << "cannot compile the call to '" << call.getCallee()
             << "': only calls to functions with a body, not recursive, "
                "are compiled (by inlining them)";
    } else {
      return op.emitError()
             << "'" << op.getName()
             << "' is outside a fusion: code generation runs on the output "
                "of the fusion pass (fusec-fuse-elementwise)";
    }
    if (failed(result))
      return failure();
    // The steps the operation added (temporary fusions are gone by now).
    out.stepOrigins.resize(exe.steps.size(), &op);
  }
  out.stats.distinctKernels = int64_t(out.kernels.size());
  exe.memory.workspaceBytes =
      out.stats.matmuls ? options.target.matmulWorkspaceBytes : 0;
  rt::planMemory(exe);
  exe.cpuSource = out.cpuSource();
  return std::move(out);
}

} // namespace

FailureOr<CompiledFunction> fusec::planFunction(func::FuncOp func,
                                                const CompileOptions &options) {
  return Planner(func, options).run();
}

namespace {
/// Kernels compiled as one NVRTC program. NVRTC costs ~25 ms per program
/// before the first kernel, so kernels are compiled in groups: a group
/// closes after a kernel whose name (a hash of its code) ends in a multiple
/// of kGroupModulus, or at kMaxGroup kernels. Content-defined boundaries
/// keep the groups of a model stable when one of its kernels changes or a
/// kernel is added: only the groups around the change are new, and the
/// others still hit the cache. The groups depend on nothing else (not on
/// the cache's state nor the thread count), so an artifact is the same
/// however it was compiled.
constexpr unsigned kGroupModulus = 4;
constexpr size_t kMaxGroup = 8;

struct Group {
  std::vector<size_t> kernels;
  std::string source, key;
  std::vector<unsigned> firstLine; // Of each kernel's body in `source`.
  Nvrtc::Result result;
  bool cached = false;
  double seconds = 0;
};

unsigned lastHexDigit(const std::string &name) {
  char c = name.empty() ? '0' : name.back();
  return unsigned(c >= 'a' ? c - 'a' + 10 : c - '0');
}

/// The kernel of `group` whose body holds line `line` (1-based) of its
/// source, or its first kernel.
size_t kernelAtLine(const Group &group, unsigned line) {
  size_t found = group.kernels.front();
  for (size_t k = 0; k < group.kernels.size(); ++k)
    if (group.firstLine[k] <= line)
      found = group.kernels[k];
  return found;
}
} // namespace

LogicalResult fusec::compileToPtx(CompiledFunction &compiled,
                                  const CompileOptions &options, Location loc,
                                  PtxGrouping grouping) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  std::vector<std::string> nvrtcOptions = Nvrtc::options(options.target.arch);
  std::string identity = Nvrtc::identity();

  std::vector<Group> groups;
  if (grouping == PtxGrouping::OneModule)
    groups.emplace_back(); // Even without kernels: a valid, empty module.
  bool open = grouping == PtxGrouping::OneModule;
  for (size_t i = 0; i < compiled.kernels.size(); ++i) {
    if (!open)
      groups.emplace_back();
    groups.back().kernels.push_back(i);
    open = grouping == PtxGrouping::OneModule ||
           (lastHexDigit(compiled.kernels[i].name) % kGroupModulus != 0 &&
            groups.back().kernels.size() < kMaxGroup);
  }
  const std::string prelude = cudaPrelude();
  unsigned preludeLines = unsigned(llvm::count(prelude, '\n'));
  for (Group &g : groups) {
    g.source = prelude;
    unsigned line = preludeLines + 1;
    for (size_t k : g.kernels) {
      g.source += "\n";
      ++line;
      g.firstLine.push_back(line);
      g.source += compiled.kernels[k].body;
      line += unsigned(llvm::count(compiled.kernels[k].body, '\n'));
    }
    g.key = kernelCacheKey(g.source, nvrtcOptions, identity);
  }

  // Cache lookups first: a model whose kernels are all cached never loads
  // NVRTC.
  std::vector<Group *> misses;
  // A group's PTX and CUBIN are two entries; both must be there.
  auto cubinKey = [](const Group &g) { return g.key + "-cubin"; };
  for (Group &g : groups) {
    std::optional<std::string> ptx, cubin;
    if (options.cache) {
      ptx = options.cache->lookup(g.key);
      if (ptx)
        cubin = options.cache->lookup(cubinKey(g));
    }
    if (ptx && cubin) {
      g.result.ok = true;
      g.result.ptx = std::move(*ptx);
      g.result.cubin = std::move(*cubin);
      g.cached = true;
    } else {
      misses.push_back(&g);
    }
  }

  // The misses, compiled in parallel.
  if (!misses.empty()) {
    std::string whyNot;
    Nvrtc *nvrtc = Nvrtc::get(&whyNot);
    if (!nvrtc)
      return emitError(loc) << whyNot;
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t m; (m = next.fetch_add(1)) < misses.size();) {
        Group &g = *misses[m];
        auto t0 = Clock::now();
        g.result = nvrtc->compile(
            g.source,
            (g.kernels.empty() ? std::string("fusec_empty")
                               : compiled.kernels[g.kernels.front()].name) +
                ".cu",
            nvrtcOptions);
        g.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
        if (g.result.ok && options.cache) {
          options.cache->store(g.key, g.result.ptx);
          options.cache->store(cubinKey(g), g.result.cubin);
        }
      }
    };
    unsigned threads = options.codegen.compileThreads
                           ? unsigned(options.codegen.compileThreads)
                           : std::max(1u, std::thread::hardware_concurrency());
    threads = unsigned(std::min<size_t>(threads, misses.size()));
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t)
      pool.emplace_back(work);
    work();
    for (std::thread &t : pool)
      t.join();
  }

  bool ok = true;
  rt::Executable &exe = compiled.executable;
  exe.ptx.clear();
  exe.cubin.clear();
  for (Group &g : groups) {
    compiled.stats.nvrtcSeconds += g.seconds;
    (g.cached ? compiled.stats.cacheHits : compiled.stats.compiled) += 1;
    if (!g.result.ok) {
      // Blame the kernel of the first error line ("name(line): error").
      unsigned line = 0;
      size_t at = g.result.log.find("): error");
      if (at != std::string::npos) {
        size_t open = g.result.log.rfind('(', at);
        if (open != std::string::npos)
          line = unsigned(std::atoi(g.result.log.c_str() + open + 1));
      }
      if (g.kernels.empty()) {
        emitError(loc) << "NVRTC cannot compile the kernel prelude ("
                       << options.target.arch << "):\n"
                       << g.result.log;
        ok = false;
        continue;
      }
      size_t k = kernelAtLine(g, line);
      compiled.kernelOrigins[k]->emitError()
          << "NVRTC cannot compile the kernel of this fusion ("
          << compiled.kernels[k].name << ", " << options.target.arch << "):\n"
          << g.result.log;
      ok = false;
      continue;
    }
    for (size_t k : g.kernels)
      exe.kernels[k].ptxIndex = int64_t(exe.ptx.size());
    exe.ptx.push_back(std::move(g.result.ptx));
    exe.cubin.push_back(std::move(g.result.cubin));
  }
  compiled.stats.modules = int64_t(groups.size());
  compiled.stats.wallSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  return success(ok);
}
