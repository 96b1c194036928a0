//===- fusec-opt.cpp - fusec optimizer driver -----------------------------===//
//
// mlir-opt with the fusec dialect, the dialects it imports and all of its
// passes registered: the tool the lit tests drive.
//
// Inputs are loaded as `fusec` loads them: parsed without verification,
// checked for what crashes upstream TOSA verifiers
// (checkTosaBeforeVerification), then verified, before the first pass; a
// failure without a diagnostic is still an error message.
//
//===----------------------------------------------------------------------===//

#include "fusec/Conversion/TosaToFusec/TosaToFusec.h"
#include "fusec/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace {

/// The verification of the input, run as the pipeline's first pass.
struct CheckInputPass
    : mlir::PassWrapper<CheckInputPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckInputPass)
  llvm::StringRef getArgument() const override { return "fusec-check-input"; }
  llvm::StringRef getDescription() const override {
    return "Verify the input (after the checks for upstream TOSA verifier "
           "crashes)";
  }
  void runOnOperation() override {
    if (mlir::failed(fusec::checkTosaBeforeVerification(getOperation())) ||
        mlir::failed(mlir::verify(getOperation())))
      signalPassFailure();
  }
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  fusec::registerAllDialects(registry);
  fusec::registerAllPasses();
  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "fusec optimizer driver\n", registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry));
  // The command line's pipeline runs after the input is checked.
  mlir::MlirOptMainConfig commandLine = config;
  config.verifyOnParsing(false);
  config.setPassPipelineSetupFn([commandLine](mlir::PassManager &pm) {
    pm.addPass(std::make_unique<CheckInputPass>());
    return commandLine.setupPassPipeline(pm);
  });
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "fusec-opt: error: " << error << "\n";
    return 1;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "fusec-opt: error: " << error << "\n";
    return 1;
  }
  // A few upstream parsers fail without a diagnostic; the failure is then
  // said here, as `fusec` says it.
  uint64_t said = llvm::errs().tell();
  if (mlir::failed(mlir::MlirOptMain(output->os(), std::move(input), registry,
                                     config))) {
    if (llvm::errs().tell() == said)
      llvm::errs() << inputFile
                   << ": error: cannot process the input (a parser failed "
                      "without a diagnostic)\n";
    return 1;
  }
  output->keep();
  return 0;
}
