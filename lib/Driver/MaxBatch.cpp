//===- MaxBatch.cpp - The largest batch whose memory plan fits ------------===//
//
// `fusec model.onnx --max-batch --memory-limit=8G`: the answer to "increase
// the batch size until you run out of memory", without running out of
// memory. The model is imported at several batch sizes (its dynamic first
// dimensions bound as --batch does), compiled to a plan each time, and the
// plan's exact memory needs (arena, constants, workspace, inputs) compared
// with the limit: doubling until a batch does not fit, then bisecting. With
// --train or --loss, the plan is the training step's (parameters,
// optimizer state, the activations kept for the backward pass).
//
//===----------------------------------------------------------------------===//

#include "fusec/Driver/Invocation.h"
#include "fusec/Runtime/Cuda/CudaDevice.h"

#include "mlir/IR/Verifier.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace fusec;

namespace {

/// The memory the plan of the entry needs at `batch`, or nullopt when the
/// model does not compile there (an error is in the session).
std::optional<int64_t> needsAt(Invocation &inv, Session &session,
                               int64_t batch) {
  ImportOptions import = inv.import;
  import.batch = batch;
  FailureOr<Model> model = session.loadFile(inv.input, import);
  if (failed(model))
    return std::nullopt;
  PipelineOptions pipeline = inv.pipeline;
  pipeline.inlineCalls = true;
  pipeline.fuse = true;
  // A training step: its plan, with the recomputation that makes a batch
  // fit when it does (--recompute=auto).
  const std::string &train = pipeline.training.train;
  if (!train.empty() &&
      pipeline.training.recompute == TrainingOptions::Recompute::Auto)
    pipeline.training.recompute = TrainingOptions::Recompute::On;
  PassManager pm(&session.getContext());
  buildFusecPipeline(pm, pipeline);
  if (failed(pm.run(model->getModule())) || failed(verify(model->getModule())))
    return std::nullopt;
  FailureOr<func::FuncOp> entry = model->findEntry(
      inv.entry.empty() && !train.empty() ? train + "_train_step" : inv.entry);
  if (failed(entry))
    return std::nullopt;
  FailureOr<CompiledFunction> compiled =
      compileFunction(*entry, inv.codegen, CodegenStage::Plan);
  if (failed(compiled))
    return std::nullopt;
  return rt::memoryNeeds(compiled->executable).total();
}

std::string mib(int64_t bytes) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << bytes << " bytes (" << llvm::format("%.1f", double(bytes) / (1 << 20))
     << " MiB)";
  return s;
}

} // namespace

LogicalResult fusec::findMaxBatch(Invocation &inv, Session &session,
                                  llvm::raw_ostream &out) {
  uint64_t limit = inv.execution.memoryLimit;
  std::string source = "--memory-limit";
  if (!limit) {
    rt::CudaDeviceOptions options;
    options.ordinal = int(inv.execution.device);
    std::string why;
    std::unique_ptr<rt::Device> gpu = rt::createCudaDevice(options, why);
    if (!gpu) {
      session.error("--max-batch needs --memory-limit=BYTES when there is "
                    "no GPU to ask (" +
                    why + ")");
      return failure();
    }
    limit = gpu->availableBytes();
    source = "the free memory of " + gpu->name();
  }
  // Batch sizes up to 2^24 (a plan's sizes grow linearly; beyond that the
  // answer is "any").
  constexpr int64_t kMaxBatch = int64_t(1) << 24;
  std::optional<int64_t> one = needsAt(inv, session, 1);
  std::optional<int64_t> two = needsAt(inv, session, 2);
  if (!one || !two)
    return failure();
  if (*one == *two) {
    session.error("--max-batch: the model's memory does not depend on "
                  "--batch (no input has a dynamic first dimension)");
    return failure();
  }
  out << "batch 1: " << mib(*one) << "\n";
  if (uint64_t(*one) > limit) {
    session.error("--max-batch: even batch 1 needs " + mib(*one) +
                  ", more than the limit " + mib(int64_t(limit)));
    return failure();
  }
  // Doubling, then bisecting between the last fit and the first misfit.
  int64_t fits = 1, fitsNeeds = *one, fails = 0, failsNeeds = 0;
  for (int64_t b = 2; b <= kMaxBatch; b *= 2) {
    std::optional<int64_t> needs = b == 2 ? two : needsAt(inv, session, b);
    if (!needs)
      return failure();
    out << "batch " << b << ": " << mib(*needs) << "\n";
    if (uint64_t(*needs) > limit) {
      fails = b;
      failsNeeds = *needs;
      break;
    }
    fits = b;
    fitsNeeds = *needs;
  }
  while (fails && fails - fits > 1) {
    int64_t mid = fits + (fails - fits) / 2;
    std::optional<int64_t> needs = needsAt(inv, session, mid);
    if (!needs)
      return failure();
    out << "batch " << mid << ": " << mib(*needs) << "\n";
    if (uint64_t(*needs) > limit) {
      fails = mid;
      failsNeeds = *needs;
    } else {
      fits = mid;
      fitsNeeds = *needs;
    }
  }
  out << "max batch: " << fits << " (needs " << mib(fitsNeeds) << " of "
      << source << ", " << mib(int64_t(limit)) << ")";
  if (fails)
    out << "; batch " << fails << " needs " << mib(failsNeeds);
  else
    out << "; every batch up to " << kMaxBatch << " fits";
  out << "\n";
  return success();
}
