//===- OnnxImporter.h - What the ONNX operator converters use ---*- C++ -*-===//
//
// Private to the ONNX import. OnnxImporter.cpp reads the model, walks the
// graph and hands each node to the converter registered for its op type
// (OnnxElementwise.cpp, OnnxTensor.cpp, OnnxNN.cpp), through a `Node`: its
// inputs as values, its attributes, the opset, a builder at its location,
// and helpers for the fusec operations converters build.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_CONVERSION_ONNXTOFUSEC_ONNXIMPORTER_H
#define FUSEC_LIB_CONVERSION_ONNXTOFUSEC_ONNXIMPORTER_H

#include "fusec/Conversion/OnnxImport.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <optional>
#include <string>

namespace fusec::onnx_import {

/// The fusec element type of an ONNX TensorProto data type; null when fusec
/// has none. `name` receives the ONNX name (FLOAT, UINT8, ...).
mlir::Type elementTypeOf(mlir::MLIRContext *context, int dataType,
                         std::string *name = nullptr);

/// What converters may ask of the import beyond their node: which
/// function is being built, and the arguments that hold initializers when
/// the model is imported for training (docs/importing-models.md,
/// "Importing for training").
class ImportContext {
public:
  enum class Mode {
    /// A model imported to run: initializers are constants.
    Inference,
    /// The training function: batch normalization with a trainable scale
    /// or bias uses the batch's statistics and updates the running ones,
    /// Dropout drops.
    Training,
    /// Its evaluation twin: the same arguments, inference semantics.
    Evaluation,
  };
  virtual ~ImportContext() = default;
  virtual Mode mode() const = 0;
  /// Whether `v` is the argument of a trainable initializer.
  virtual bool isParameter(mlir::Value v) const = 0;
  /// The initial value of the parameter `v` for a converter that needs it
  /// as a constant (a pad value, a range's bounds); the import then starts
  /// again with that initializer frozen.
  virtual mlir::ElementsAttr freeze(mlir::Value v) = 0;
  /// Whether `v` is the argument of model state (a running statistic).
  virtual bool isState(mlir::Value v) const = 0;
  /// Records `next` as the value of the state argument `state` after a
  /// training step.
  virtual void updateState(mlir::Value state, mlir::Value next) = 0;
  /// The key (seed, step) of the dropout generator: an argument made on
  /// first use, whose step the training step advances.
  virtual mlir::Value dropoutKey() = 0;
};

class Node {
public:
  /// A sequence of tensors (ONNX's seq(tensor)), held element by element:
  /// only sequences whose length the import knows are supported.
  using Sequence = llvm::SmallVector<mlir::Value>;

  Node(const onnx::NodeProto &proto, int64_t index, int64_t opset,
       ImportContext &model, mlir::OpBuilder &builder, mlir::Location loc,
       llvm::ArrayRef<mlir::Value> inputs,
       llvm::ArrayRef<const Sequence *> sequences = {})
      : proto(proto), index(index), opset(opset), model(model), b(builder),
        loc(loc), inputs(inputs), sequences(sequences) {}

  const onnx::NodeProto &proto;
  /// The node's position in the graph.
  int64_t index;
  /// The version of the default-domain opset the model imports.
  int64_t opset;
  ImportContext &model;
  mlir::OpBuilder &b;
  mlir::Location loc;

  //===--- Inputs and outputs ---------------------------------------------===//

  /// Input `i`; null when absent (beyond the list, or an empty name).
  mlir::Value input(unsigned i) const {
    return i < inputs.size() ? inputs[i] : mlir::Value();
  }
  unsigned numInputs() const { return inputs.size(); }
  /// Fails unless the first `count` inputs are present.
  mlir::LogicalResult need(unsigned count);
  /// The dimensions from `axis` (the attribute, normalised) to the last;
  /// a failure if it is out of range.
  mlir::FailureOr<llvm::SmallVector<int64_t>> trailingAxes(mlir::Value v,
                                                           int64_t defaultAxis);
  /// The number of outputs the node names (optional ones may be empty).
  unsigned numOutputs() const { return unsigned(proto.output_size()); }
  bool wantsOutput(unsigned i) const {
    return int(i) < proto.output_size() && !proto.output(int(i)).empty();
  }
  /// The results, in output order (null for outputs not produced).
  llvm::SmallVector<mlir::Value> outputs;
  /// Input `i` when it is a sequence, else null.
  const Sequence *sequence(unsigned i) const {
    return i < sequences.size() ? sequences[i] : nullptr;
  }
  /// Outputs that are sequences, by output position.
  std::map<unsigned, Sequence> sequenceOutputs;

  //===--- Attributes
  //------------------------------------------------------===//

  const onnx::AttributeProto *attribute(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t otherwise) const;
  float getFloat(llvm::StringRef name, float otherwise) const;
  std::string getString(llvm::StringRef name, llvm::StringRef otherwise) const;
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name) const;

  //===--- Failing --------------------------------------------------------===//

  /// Records why the node cannot be imported (reported at its location).
  mlir::LogicalResult fail(const llvm::Twine &why);
  std::string failure;

  //===--- Values
  //----------------------------------------------------------===//

  mlir::RankedTensorType typeOf(mlir::Value v) const {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  int64_t rankOf(mlir::Value v) const { return typeOf(v).getRank(); }
  mlir::Type elementOf(mlir::Value v) const {
    return typeOf(v).getElementType();
  }
  /// The integer values of a constant input (after folding); a failure
  /// naming the input otherwise.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  constantInts(unsigned i, llvm::StringRef what);
  /// The values of a constant input as doubles; nullopt if not constant.
  std::optional<llvm::SmallVector<double>> constantValues(mlir::Value v);
  /// constantValues for an input the converter cannot do without: a
  /// trainable initializer's initial value (ImportContext::freeze) too.
  std::optional<llvm::SmallVector<double>> requiredValues(mlir::Value v);
  /// `axis` in [-rank, rank) made non-negative; a failure otherwise.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
  /// Each of `axes` normalised, sorted, repeats removed.
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  normalizeAxes(llvm::ArrayRef<int64_t> axes, int64_t rank);

  /// A rank-0 constant of `element` holding `value`.
  mlir::Value scalar(mlir::Type element, double value);
  /// A constant tensor of i64 values.
  mlir::Value i64Tensor(llvm::ArrayRef<int64_t> values);
  mlir::Value reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape);
  mlir::Value transpose(mlir::Value v, llvm::ArrayRef<int64_t> perm);
  mlir::Value castTo(mlir::Value v, mlir::Type element);
  mlir::Value broadcastTo(mlir::Value v, llvm::ArrayRef<int64_t> shape);
  /// A constant of `element` and rank `rank` holding 0, 1, ..., n-1 along
  /// dimension `axis` (size 1 elsewhere): the positions along an axis, to
  /// compare with indices.
  mlir::Value iota(int64_t n, int64_t axis, int64_t rank, mlir::Type element);
  /// Where `indices` (broadcast with iota along `axis`) select: an i1
  /// one-hot of the result shape.
  mlir::Value oneHot(mlir::Value indices, int64_t n, int64_t axis);
  /// `Op` built at the node's location, verified (a failure is recorded,
  /// with the verifier's message) and folded when its operands are
  /// constants.
  template <typename Op, typename... Args> mlir::Value make(Args &&...args) {
    return finish(Op::create(b, loc, std::forward<Args>(args)...));
  }
  mlir::Value finish(mlir::Operation *op);
  // Operations whose operands come from the model and must agree: each
  // checks first (the builders of ops that infer their types abort on
  // operands that do not fit) and, when they do not, records the failure
  // and returns its first operand; the importer then discards what the
  // node built.

  /// Whether `values` broadcast together (NumPy); with `sameElement`, also
  /// whether they share an element type. Records a failure otherwise.
  bool broadcastable(mlir::ValueRange values, bool sameElement = true);
  template <typename Op> mlir::Value binary(mlir::Value x, mlir::Value y) {
    if (!broadcastable({x, y}))
      return x;
    return make<Op>(x, y);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) { return binary<AddOp>(x, y); }
  mlir::Value sub(mlir::Value x, mlir::Value y) { return binary<SubOp>(x, y); }
  mlir::Value mul(mlir::Value x, mlir::Value y) { return binary<MulOp>(x, y); }
  mlir::Value div(mlir::Value x, mlir::Value y) { return binary<DivOp>(x, y); }
  mlir::Value max(mlir::Value x, mlir::Value y) { return binary<MaxOp>(x, y); }
  mlir::Value min(mlir::Value x, mlir::Value y) { return binary<MinOp>(x, y); }
  mlir::Value compare(CmpPredicate p, mlir::Value x, mlir::Value y) {
    if (!broadcastable({x, y}))
      return x;
    return make<CompareOp>(p, x, y);
  }
  mlir::Value select(mlir::Value c, mlir::Value t, mlir::Value f);
  /// NumPy matmul of operands of rank 2 or more.
  mlir::Value matmul(mlir::Value a, mlir::Value b);
  mlir::Value concat(mlir::ValueRange values, int64_t axis);
  template <typename ReduceOp>
  mlir::Value reduce(mlir::Value x, llvm::ArrayRef<int64_t> axes,
                     bool keepDims) {
    return make<ReduceOp>(x, axes, keepDims);
  }

private:
  llvm::ArrayRef<mlir::Value> inputs;
  llvm::ArrayRef<const Sequence *> sequences;
};

/// What an initializer becomes when the model is imported for training.
struct InitializerRole {
  enum Kind { Constant, Parameter, State } kind = Constant;
  /// State: its role ("batch_norm.running_mean", "batch_norm.running_var").
  std::string state;
};

/// The role of each of `graph`'s initializers (in its order) under
/// `options.trainable` and `options.frozen`: the float initializers that a
/// trainable pattern matches and no frozen one does are parameters, except
/// batch-normalization statistics, which are state where the
/// normalization's scale or bias is a parameter (it then normalizes with
/// the batch's statistics and updates these) and constants otherwise. A
/// pattern that matches no initializer, or only integer ones, and
/// trainable patterns that leave nothing to train are errors, reported
/// through `error`; `readable[i]` says whether initializer i could be read.
mlir::LogicalResult planInitializerRoles(
    const onnx::GraphProto &graph, const OnnxImportOptions &options,
    llvm::ArrayRef<bool> isFloat, std::vector<InitializerRole> &roles,
    llvm::function_ref<void(const llvm::Twine &)> error);

/// Converts one node: fills `node.outputs`, or fails with `node.fail`.
using Converter = mlir::LogicalResult (*)(Node &node);
using ConverterMap = llvm::StringMap<Converter>;

void addElementwiseConverters(ConverterMap &map);
void addTensorConverters(ConverterMap &map);
void addNeuralNetworkConverters(ConverterMap &map);
void addIndexingConverters(ConverterMap &map);
void addAttentionConverters(ConverterMap &map);
void addSequenceConverters(ConverterMap &map);

} // namespace fusec::onnx_import

#endif // FUSEC_LIB_CONVERSION_ONNXTOFUSEC_ONNXIMPORTER_H
