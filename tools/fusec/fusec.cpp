//===- fusec.cpp - The fusec command-line compiler ------------------------===//
//
//   fusec MODEL.mlir [-o OUT] [--emit=...] [--entry=NAME]
//         [--run --input=A.npy ... --output-dir=DIR --backend=auto|interp]
//
// A thin main over the driver library (fusec/Driver/Invocation.h): binds
// the options structs to the command line, adds MLIR's standard flags, and
// prints the collected diagnostics. Every error is a diagnostic
// (file:line:col where the input has a location) and exit status 1.
//
//===----------------------------------------------------------------------===//

#include "fusec/Driver/CommandLine.h"
#include "fusec/Driver/Invocation.h"
#include "fusec/Driver/Session.h"
#include "fusec/InitAll.h"

#include "mlir/Debug/Counter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  tracing::DebugCounter::registerCLOptions();
  fusec::registerAllPasses();

  fusec::Invocation invocation;
  fusec::CommandLineBinder binder;
  binder.positional(invocation.input, "<model.mlir | ->", "");
  invocation.bindOptions(binder);
  // libLLVM registers hundreds of codegen flags: --help shows fusec's own
  // options; MLIR's standard --mlir-* ones (which work as in mlir-opt) are
  // listed by --help-hidden, with the rest.
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    bool ours = llvm::any_of(option->Categories, [&](cl::OptionCategory *c) {
      return binder.owns(c);
    });
    bool generic = entry.first == "help" || entry.first == "version";
    if (!ours && !generic)
      option->setHiddenFlag(cl::Hidden);
  }
  cl::SetVersionPrinter(
      [](llvm::raw_ostream &os) { os << fusec::versionText(); });
  std::string error;
  if (!fusec::parseCommandLine(
          argc, argv,
          "fusec: kernel-fusion and mixed-precision compiler for tensor "
          "graphs\n\nMLIR's standard flags (--mlir-timing, "
          "--mlir-print-ir-after-all, ...): --help-hidden\n",
          error) ||
      !binder.load(error)) {
    llvm::errs() << "fusec: error: " << error << "\n";
    return 1;
  }

  fusec::Session session;
  session.skipTeardown(); // The process exits right after.
  fusec::warnIneffectiveOptions(
      invocation, [&](std::string_view group) { return binder.givenIn(group); },
      session);
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();
  auto configure = [&](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(root);
    return success();
  };
  LogicalResult result =
      fusec::runInvocation(invocation, session, configure, llvm::outs());
  llvm::outs().flush();
  if (std::error_code ec = llvm::outs().error()) {
    // Said here rather than by raw_fd_ostream's "LLVM ERROR" at exit.
    session.error("<stdout>: cannot write: " + ec.message());
    llvm::outs().clear_error();
  }
  for (const fusec::Diagnostic &d : session.takeDiagnostics())
    llvm::errs() << d.rendered;
  return failed(result) || session.hasErrors() ? 1 : 0;
}
