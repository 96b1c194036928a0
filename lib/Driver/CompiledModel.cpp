//===- CompiledModel.cpp - A model compiled once, run many times ----------===//

#include "fusec/Driver/CompiledModel.h"
#include "Runner.h"
#include "fusec/Dialect/Fusec/IR/FusecInterfaces.h"
#include "fusec/Dialect/Fusec/Transforms/TrainStep.h"
#include "fusec/Interpreter/Interpreter.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Executor.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace fusec;

bool fusec::parseInvocationOptions(const std::vector<std::string> &options,
                                   Invocation &invocation, std::string &error) {
  ArgumentParser parser("fusec", "");
  invocation.bindOptions(parser);
  std::vector<std::string> argv = {"fusec"};
  argv.insert(argv.end(), options.begin(), options.end());
  std::vector<char *> pointers;
  for (std::string &a : argv)
    pointers.push_back(a.data());
  std::vector<std::string> positionals;
  std::string message;
  ArgumentParser::Result r =
      parser.parse(int(pointers.size()), pointers.data(), positionals, message);
  if (r != ArgumentParser::Result::Ok || !positionals.empty()) {
    error = r == ArgumentParser::Result::Error
                ? message
                : "unexpected argument '" +
                      (positionals.empty() ? std::string("--help")
                                           : positionals.front()) +
                      "'";
    return false;
  }
  return true;
}

CompiledModel::CompiledModel(Model model, Invocation invocation)
    : model(std::move(model)), invocation(std::move(invocation)) {}
CompiledModel::~CompiledModel() = default;

namespace {
std::vector<TensorInfo> describe(TypeRange types,
                                 llvm::function_ref<Attribute(unsigned)> attrs,
                                 const char *prefix) {
  std::vector<TensorInfo> infos;
  for (auto [i, type] : llvm::enumerate(types)) {
    TensorInfo info;
    info.name = prefix + std::to_string(i);
    if (auto name = dyn_cast_or_null<StringAttr>(attrs(unsigned(i))))
      info.name = name.str();
    if (auto tensor = dyn_cast<RankedTensorType>(type)) {
      if (std::optional<DType> dtype = toDType(tensor.getElementType()))
        info.dtype = *dtype;
      info.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    }
    infos.push_back(std::move(info));
  }
  return infos;
}
} // namespace

FailureOr<std::unique_ptr<CompiledModel>>
CompiledModel::compile(Session &session, Model model, Invocation invocation) {
  invocation.run = true; // Compiled for the device --run would use.
  FailureOr<std::unique_ptr<rt::Device>> device =
      driver::openRunDevice(invocation, session);
  if (failed(device))
    return failure();
  std::unique_ptr<CompiledModel> compiled(
      new CompiledModel(std::move(model), std::move(invocation)));
  CompiledModel &c = *compiled;
  c.dev = std::move(*device);
  if (failed(driver::runPipeline(c.invocation, session, *c.model, c.dev.get(),
                                 nullptr, nullptr)))
    return failure();
  FailureOr<func::FuncOp> entry = c.model->findEntry(c.invocation.entry);
  if (failed(entry))
    return failure();
  if (const std::string &loss = c.invocation.pipeline.training.train;
      !loss.empty()) {
    FailureOr<TrainStepSignature> sig =
        trainStepSignature(c.model->getModule(), loss);
    if (failed(sig))
      return failure();
    c.signature = std::move(*sig);
  }
  InterpreterOptions options;
  options.memoryLimit = c.invocation.execution.memoryLimit;
  c.interpreter = std::make_unique<Interpreter>(options);
  FailureOr<driver::Runner> runner =
      driver::makeRunner(c.invocation, *entry, *c.interpreter, c.dev.get());
  if (failed(runner))
    return failure();
  c.runner = std::make_unique<driver::Runner>(std::move(*runner));
  func::FuncOp f = *entry;
  c.args = describe(
      f.getArgumentTypes(),
      [&](unsigned i) { return f.getArgAttr(i, kNameAttrName); }, "arg");
  c.outs = describe(
      f.getResultTypes(),
      [&](unsigned i) { return f.getResultAttr(i, kNameAttrName); }, "result");
  return compiled;
}

std::string CompiledModel::device() const {
  std::string report = runner->report();
  llvm::StringRef line = llvm::StringRef(report).split('\n').first;
  line.consume_front("device: ");
  return line.str();
}

std::optional<std::vector<Buffer>>
CompiledModel::run(const std::vector<Buffer> &arguments, std::string &error) {
  if (arguments.size() != args.size()) {
    error = "expected " + std::to_string(args.size()) + " argument(s) (" +
            [&] {
              std::string names;
              for (const TensorInfo &a : args)
                names += (names.empty() ? "" : ", ") + a.name;
              return names;
            }() +
            "), got " + std::to_string(arguments.size());
    return std::nullopt;
  }
  for (auto [i, buffer] : llvm::enumerate(arguments)) {
    const TensorInfo &a = args[i];
    if (buffer.dtype() != a.dtype || buffer.shape() != a.shape) {
      error = "argument '" + a.name + "' is " +
              std::string(dtypeName(a.dtype)) + "[" + formatShape(a.shape) +
              "], got " + std::string(dtypeName(buffer.dtype())) + "[" +
              formatShape(buffer.shape()) + "]";
      return std::nullopt;
    }
  }
  return runner->run(arguments, error);
}

FailureOr<std::string> CompiledModel::artifact() {
  FailureOr<func::FuncOp> entry = model->findEntry(invocation.entry);
  if (failed(entry))
    return failure();
  FailureOr<CompiledFunction> compiled =
      compileFunction(*entry, invocation.codegen, CodegenStage::Ptx);
  if (failed(compiled))
    return failure();
  std::string error;
  if (invocation.execution.memoryLimit &&
      !rt::checkMemoryLimit(compiled->executable,
                            invocation.execution.memoryLimit, error))
    return entry->emitError() << error;
  return rt::serializeExecutable(compiled->executable);
}

FailureOr<std::string> CompiledModel::cudaSource() {
  FailureOr<func::FuncOp> entry = model->findEntry(invocation.entry);
  if (failed(entry))
    return failure();
  FailureOr<CompiledFunction> compiled =
      compileFunction(*entry, invocation.codegen, CodegenStage::Plan);
  if (failed(compiled))
    return failure();
  return compiled->cudaSource();
}

LogicalResult CompiledModel::fit(const std::vector<std::string> &options,
                                 llvm::raw_ostream &out) {
  ModuleOp module = model->getModule();
  if (!signature)
    return module.emitError() << "fit: the compiled function is not a "
                                 "training step (compile with --train=FUNC)";
  Invocation inv = invocation;
  inv.trainLoop = TrainLoopOptions();
  inv.outputDir.clear();
  std::string error;
  if (!parseInvocationOptions(options, inv, error))
    return module.emitError() << "fit: " << error;
  if (inv.trainLoop.data.empty())
    return module.emitError() << "fit: no data (--data=NAME=FILE.npy)";
  if (inv.outputDir.empty())
    return module.emitError() << "fit: no --output-dir for the parameters";
  const std::string &loss = inv.pipeline.training.train;
  auto lossFunc = module.lookupSymbol<func::FuncOp>(loss);
  auto step = module.lookupSymbol<func::FuncOp>(loss + "_train_step");
  return driver::fitModule(inv, module, &*signature, lossFunc, step,
                           *interpreter, dev.get(), out);
}

FailureOr<std::string> fusec::reportModel(Session &session, Model &model,
                                          Invocation invocation) {
  Model copy(OwningOpRef<ModuleOp>(model.getModule().clone()), model.getName());
  FusionReportCollector collector(ReportFormat::Text, invocation.entry);
  invocation.run = false;
  if (failed(driver::runPipeline(invocation, session, copy, nullptr, &collector,
                                 nullptr)))
    return failure();
  return collector.render(copy.getModule(), invocation.codegen);
}
