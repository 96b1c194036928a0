//===- OnnxTrainedWeights.h - Trained weights back into ONNX ----*- C++ -*-===//
//
// A trained model goes back to the tools it came from: the original ONNX
// model with the initializers that training changed replaced by their new
// values, everything else (graph, opsets, metadata, other initializers)
// kept as it was, so onnxruntime and PyTorch read it as before.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CONVERSION_ONNXTRAINEDWEIGHTS_H
#define FUSEC_CONVERSION_ONNXTRAINEDWEIGHTS_H

#include "fusec/Support/Buffer.h"

#include <map>
#include <string>
#include <string_view>

namespace fusec {

/// The ONNX model `bytes` with the initializers named in `values` holding
/// those values, serialized into `out`. Each value must have its
/// initializer's element type and shape; a replaced initializer holds its
/// data in the model (raw_data, even where it was external data), the
/// others are kept as they are (external data stays in its files, which
/// must then be beside the written model). False with `error` when `bytes`
/// is not an ONNX model, a name is not an initializer, a type or shape
/// differs, or the result exceeds protobuf's 2 GB.
bool replaceOnnxInitializers(std::string_view bytes,
                             const std::map<std::string, Buffer> &values,
                             std::string &out, std::string &error);

} // namespace fusec

#endif // FUSEC_CONVERSION_ONNXTRAINEDWEIGHTS_H
