//===- FusecDialect.h - fusec dialect ---------------------------*- C++ -*-===//

#ifndef FUSEC_DIALECT_FUSEC_IR_FUSECDIALECT_H
#define FUSEC_DIALECT_FUSEC_IR_FUSECDIALECT_H

#include "mlir/IR/Dialect.h"

#include "fusec/Dialect/Fusec/IR/FusecOpsDialect.h.inc"

#endif // FUSEC_DIALECT_FUSEC_IR_FUSECDIALECT_H
