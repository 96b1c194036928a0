//===- InitAll.h - Register everything fusec provides -----------*- C++ -*-===//
//
// One place that registers the dialects fusec reads and the passes and
// pipelines it provides, shared by fusec, fusec-opt, the unit tests and
// embedders.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_INITALL_H
#define FUSEC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fusec {

/// fusec, func and the input dialects (tosa).
void registerAllDialects(mlir::DialectRegistry &registry);

/// fusec's passes and pipeline, plus the upstream transforms they rely on
/// (canonicalize, cse, ...), for textual pass pipelines.
void registerAllPasses();

} // namespace fusec

#endif // FUSEC_INITALL_H
