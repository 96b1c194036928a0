//===- OnnxImport.h - Read ONNX models into fusec ---------------*- C++ -*-===//
//
// ONNX models (protobuf ModelProto files) imported as a module with one
// function of fusec operations: graph inputs that are not initializers
// become its arguments, graph outputs its results, initializers constants
// (or, imported for training, parameters and model state). See
// docs/importing-models.md.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CONVERSION_ONNXIMPORT_H
#define FUSEC_CONVERSION_ONNXIMPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fusec {

struct OnnxImportOptions {
  /// Full shapes of named inputs (--input-shape=NAME=1x3x224x224), which
  /// bind their dynamic dimensions.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// The size of a dynamic first dimension of any input (--batch=N); 0:
  /// unset.
  int64_t batch = 0;
  /// Inputs given a value at compile time (--constant-input=NAME=FILE.npy):
  /// they become constants, so that shapes, axes or indices computed from
  /// them fold (what a framework's static arguments do).
  std::map<std::string, std::string> constantInputs;
  /// The name of the imported function.
  std::string functionName = "main";
  /// The initializers imported as trainable parameters (`fusec.param`
  /// arguments named by the initializer, their values as `fusec.init`):
  /// glob patterns on the names, "all" for every float initializer, or
  /// "none"; empty: none. With any, the model is imported for training: a
  /// training function (batch statistics, dropout) and its evaluation twin
  /// `<functionName>_eval` (docs/importing-models.md).
  std::vector<std::string> trainable;
  /// Initializers kept constant whatever `trainable` matches (patterns).
  std::vector<std::string> frozen;
};

/// Whether `bytes` (the start of a file) look like an ONNX model rather
/// than MLIR text or bytecode: a protobuf whose first field is ModelProto's
/// ir_version.
bool looksLikeOnnx(llvm::StringRef bytes);

/// Imports the ONNX model `bytes`, read from `path` (external data files are
/// read relative to its directory). Errors are emitted as diagnostics at
/// locations `path:node N 'name' (OpType)` (or naming the input or
/// initializer); every unsupported node is reported, not only the first.
/// Null on failure.
mlir::OwningOpRef<mlir::ModuleOp> importOnnx(mlir::MLIRContext &context,
                                             llvm::StringRef path,
                                             llvm::StringRef bytes,
                                             const OnnxImportOptions &options);

} // namespace fusec

#endif // FUSEC_CONVERSION_ONNXIMPORT_H
