//===- OnnxTrainedWeights.cpp - Trained weights back into ONNX ------------===//

#include "fusec/Conversion/OnnxTrainedWeights.h"
#include "fusec/Support/DType.h"

#include <onnx/onnx_pb.h>

#include <google/protobuf/io/coded_stream.h>

#include <climits>
#include <set>

using namespace fusec;

namespace {

/// The ONNX data type of a fusec dtype.
int onnxType(DType t) {
  switch (t) {
  case DType::F32:
    return onnx::TensorProto::FLOAT;
  case DType::F16:
    return onnx::TensorProto::FLOAT16;
  case DType::BF16:
    return onnx::TensorProto::BFLOAT16;
  case DType::F64:
    return onnx::TensorProto::DOUBLE;
  case DType::I1:
    return onnx::TensorProto::BOOL;
  case DType::I32:
    return onnx::TensorProto::INT32;
  case DType::I64:
    return onnx::TensorProto::INT64;
  }
  return onnx::TensorProto::UNDEFINED;
}

} // namespace

bool fusec::replaceOnnxInitializers(std::string_view bytes,
                                    const std::map<std::string, Buffer> &values,
                                    std::string &out, std::string &error) {
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()), int(bytes.size()));
  stream.SetTotalBytesLimit(INT32_MAX);
  if (bytes.size() > size_t(INT32_MAX) ||
      !model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    error = "not a valid ONNX model (the protobuf does not parse)";
    return false;
  }
  std::set<std::string> replaced;
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    auto it = values.find(t.name());
    if (it == values.end())
      continue;
    const Buffer &v = it->second;
    Shape dims(t.dims().begin(), t.dims().end());
    if (onnxType(v.dtype()) != t.data_type() || v.shape() != dims) {
      error = "initializer '" + t.name() + "' is " +
              (onnx::TensorProto_DataType_IsValid(t.data_type())
                   ? onnx::TensorProto_DataType_Name(
                         onnx::TensorProto_DataType(t.data_type()))
                   : std::string("of an unknown type")) +
              "[" + formatShape(dims) + "] in the model, the new value " +
              std::string(dtypeName(v.dtype())) + "[" + formatShape(v.shape()) +
              "]";
      return false;
    }
    std::string raw(static_cast<const char *>(v.data()), v.sizeInBytes());
    t.clear_float_data();
    t.clear_double_data();
    t.clear_int32_data();
    t.clear_int64_data();
    t.clear_external_data();
    t.set_data_location(onnx::TensorProto::DEFAULT);
    t.set_raw_data(std::move(raw));
    replaced.insert(t.name());
  }
  for (const auto &[name, value] : values)
    if (!replaced.count(name)) {
      error = "the model has no initializer named '" + name + "'";
      return false;
    }
  if (model.ByteSizeLong() > size_t(INT32_MAX)) {
    error = "the model with its new weights exceeds protobuf's 2 GB limit";
    return false;
  }
  out.clear();
  if (!model.SerializeToString(&out)) {
    error = "cannot serialize the ONNX model";
    return false;
  }
  return true;
}
