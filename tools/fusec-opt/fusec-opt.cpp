//===- fusec-opt.cpp - fusec optimizer driver -----------------------------===//
//
// mlir-opt with the fusec dialect, the dialects it imports and all of its
// passes registered: the tool the lit tests drive.
//
//===----------------------------------------------------------------------===//

#include "fusec/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  fusec::registerAllDialects(registry);
  fusec::registerAllPasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "fusec optimizer driver\n", registry));
}
