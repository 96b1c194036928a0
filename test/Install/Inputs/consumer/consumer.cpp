// Embeds fusec's pipeline: parses a TOSA module, runs buildFusecPipeline,
// prints the result, then the CUDA C++ of its kernels.
#include "fusec/Codegen/Compile.h"
#include "fusec/InitAll.h"
#include "fusec/Pipeline/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

static const char *kModule = R"mlir(
func.func @f(%a: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.add %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = tosa.tanh %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tosa.exp %1 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}
)mlir";

int main() {
  mlir::DialectRegistry registry;
  fusec::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  fusec::PipelineOptions options;
  fusec::buildFusecPipeline(pm, options);
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  auto f = module->lookupSymbol<mlir::func::FuncOp>("f");
  mlir::FailureOr<fusec::CompiledFunction> compiled =
      fusec::planFunction(f, fusec::CompileOptions());
  if (mlir::failed(compiled))
    return 1;
  llvm::outs() << compiled->cudaSource();
  return 0;
}
