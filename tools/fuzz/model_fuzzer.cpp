//===- model_fuzzer.cpp - libFuzzer targets: load, pipeline, interpreter -===//
//
// Any bytes as a model: MLIR text in the fusec and TOSA dialects
// (fusec-fuzz-mlir) or an ONNX protobuf (fusec-fuzz-onnx; FUSEC_FUZZ_NAME
// picks the reader). Loading verifies the model or reports why not; a
// model that loads goes through the whole pipeline (folding, fusion) and
// the reference interpreter runs its entry on zero inputs when they are
// small. Every failure is a diagnostic, never a crash.
//
//===----------------------------------------------------------------------===//

#include "fusec/Driver/CompiledModel.h"
#include "fusec/Driver/Invocation.h"
#include "fusec/Driver/Session.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/Checked.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace fusec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  Session session;
  mlir::FailureOr<Model> model = session.loadBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, FUSEC_FUZZ_NAME));
  if (failed(model))
    return 0;
  Invocation inv;
  inv.backend = Backend::Interp;
  inv.execution.memoryLimit = 64 << 20;
  mlir::FailureOr<std::unique_ptr<CompiledModel>> compiled =
      CompiledModel::compile(session, std::move(*model), inv);
  if (failed(compiled))
    return 0;
  int64_t elements = 0;
  std::vector<Buffer> args;
  for (const TensorInfo &arg : (*compiled)->arguments()) {
    std::optional<int64_t> n = checkedNumElements(arg.shape);
    if (!n || (elements += *n) > (int64_t(1) << 16))
      return 0; // Large inputs: the interpreter's speed, not its safety.
    std::string error;
    Buffer b = Buffer::allocate(arg.dtype, arg.shape, &error);
    if (!b)
      return 0;
    args.push_back(std::move(b));
  }
  std::string error;
  (*compiled)->run(args, error);
  return 0;
}
