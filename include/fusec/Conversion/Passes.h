//===- Passes.h - fusec conversion passes -----------------------*- C++ -*-===//

#ifndef FUSEC_CONVERSION_PASSES_H
#define FUSEC_CONVERSION_PASSES_H

#include "fusec/Conversion/TosaToFusec/TosaToFusec.h"
#include "fusec/Dialect/Fusec/IR/FusecDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace fusec {

#define GEN_PASS_DECL
#include "fusec/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fusec/Conversion/Passes.h.inc"

} // namespace fusec

#endif // FUSEC_CONVERSION_PASSES_H
