//===- InitAll.cpp - Register everything fusec provides -------------------===//

#include "fusec/InitAll.h"
#include "fusec/Conversion/Passes.h"
#include "fusec/Dialect/Fusec/IR/FusecDialect.h"
#include "fusec/Dialect/Fusec/Transforms/Passes.h"
#include "fusec/Pipeline/Pipeline.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Transforms/Passes.h"

void fusec::registerAllDialects(mlir::DialectRegistry &registry) {
  registry
      .insert<FusecDialect, mlir::func::FuncDialect, mlir::tosa::TosaDialect>();
  // func.call can be inlined (code generation inlines calls).
  mlir::func::registerInlinerExtension(registry);
}

void fusec::registerAllPasses() {
  mlir::registerTransformsPasses();
  registerFusecConversionPasses();
  registerFusecTransformsPasses();
  registerFusecPipeline();
}
