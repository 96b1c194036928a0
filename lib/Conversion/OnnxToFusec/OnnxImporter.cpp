//===- OnnxImporter.cpp - ONNX ModelProto to fusec ------------------------===//
//
// Reads the model with ONNX's own protobuf classes, turns initializers into
// constants (large ones as resource blobs, the bytes copied once from the
// protobuf), binds dynamic input dimensions, and converts the nodes in
// graph order (ONNX requires topological order). Every node whose operator
// is unknown or whose use of it fusec cannot represent is reported at
// `model.onnx:node N 'name' (OpType)`; the nodes depending on it are
// skipped without errors of their own, so that one run lists every
// unsupported node. Values are built with createOrFold: shape subgraphs
// (Shape -> Gather -> Concat -> Reshape) fold to constants as they are
// imported.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"
#include "fusec/Conversion/OnnxImport.h"
#include "fusec/Dialect/Fusec/IR/TrainingAttributes.h"
#include "fusec/Interpreter/Kernels.h"
#include "fusec/Support/Checked.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Npy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>

#include <cstring>

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

static std::string typeString(Type type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << type;
  return s;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type fusec::onnx_import::elementTypeOf(MLIRContext *context, int dataType,
                                       std::string *name) {
  if (name)
    *name = onnx::TensorProto_DataType_IsValid(dataType)
                ? onnx::TensorProto_DataType_Name(
                      onnx::TensorProto_DataType(dataType))
                : "data type " + std::to_string(dataType);
  Builder b(context);
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  default:
    return Type();
  }
}

bool fusec::looksLikeOnnx(StringRef bytes) {
  // Field 1 (ir_version), varint: tag byte 0x08 then a small version.
  return bytes.size() >= 2 && bytes[0] == 0x08 && bytes[1] > 0 &&
         bytes[1] < 0x40;
}

//===----------------------------------------------------------------------===//
// Node
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *Node::attribute(StringRef name) const {
  for (const onnx::AttributeProto &a : proto.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t Node::getInt(StringRef name, int64_t otherwise) const {
  const onnx::AttributeProto *a = attribute(name);
  return a && a->has_i() ? a->i() : otherwise;
}

float Node::getFloat(StringRef name, float otherwise) const {
  const onnx::AttributeProto *a = attribute(name);
  return a && a->has_f() ? a->f() : otherwise;
}

std::string Node::getString(StringRef name, StringRef otherwise) const {
  const onnx::AttributeProto *a = attribute(name);
  return a && a->has_s() ? a->s() : otherwise.str();
}

std::optional<SmallVector<int64_t>> Node::getInts(StringRef name) const {
  const onnx::AttributeProto *a = attribute(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

LogicalResult Node::need(unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    if (!input(i))
      return fail("input " + Twine(i) + " is missing");
  return success();
}

FailureOr<SmallVector<int64_t>> Node::trailingAxes(Value v,
                                                   int64_t defaultAxis) {
  int64_t rank = rankOf(v);
  FailureOr<int64_t> axis = normalizeAxis(getInt("axis", defaultAxis), rank);
  if (failed(axis))
    return mlir::failure();
  return llvm::to_vector(llvm::seq<int64_t>(*axis, rank));
}

LogicalResult Node::fail(const Twine &why) {
  if (failure.empty())
    failure = why.str();
  return mlir::failure();
}

Value Node::finish(Operation *op) {
  std::string why;
  LogicalResult verified = success();
  {
    ScopedDiagnosticHandler capture(op->getContext(), [&](Diagnostic &d) {
      if (why.empty())
        why = d.str();
      return success();
    });
    verified = verify(op, /*verifyRecursively=*/false);
  }
  if (failed(verified)) {
    (void)fail(why);
    return op->getResult(0);
  }
  SmallVector<Value, 1> folded;
  if (succeeded(b.tryFold(op, folded)) && !folded.empty()) {
    op->erase();
    return folded.front();
  }
  return op->getResult(0);
}

/// The elements of `attr` as doubles; nullopt if they cannot be read.
static std::optional<SmallVector<double>> valuesOf(ElementsAttr attr) {
  EvalContext ctx;
  Buffer buffer = elementsToBuffer(attr, ctx);
  if (!buffer)
    return std::nullopt;
  SmallVector<double> values;
  for (int64_t i = 0, e = buffer.numElements(); i < e; ++i)
    values.push_back(buffer.getAsDouble(i));
  return values;
}

std::optional<SmallVector<double>> Node::constantValues(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return valuesOf(attr);
}

std::optional<SmallVector<double>> Node::requiredValues(Value v) {
  if (std::optional<SmallVector<double>> values = constantValues(v))
    return values;
  if (!v || !model.isParameter(v))
    return std::nullopt;
  return valuesOf(model.freeze(v));
}

FailureOr<SmallVector<int64_t>> Node::constantInts(unsigned i, StringRef what) {
  Value v = input(i);
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) ||
      !isa<IntegerType>(attr.getElementType()))
    return fail("input " + Twine(i) + " ('" + what +
                "') must be a constant integer tensor (or computed from "
                "shapes only)");
  EvalContext ctx;
  Buffer buffer = elementsToBuffer(attr, ctx);
  if (!buffer)
    return fail("input " + Twine(i) + " ('" + what + "') cannot be read");
  SmallVector<int64_t> values;
  for (int64_t k = 0, e = buffer.numElements(); k < e; ++k)
    values.push_back(buffer.dtype() == DType::I64 ? buffer.as<int64_t>()[k]
                     : buffer.dtype() == DType::I32
                         ? int64_t(buffer.as<int32_t>()[k])
                         : int64_t(buffer.as<uint8_t>()[k]));
  return values;
}

FailureOr<int64_t> Node::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return fail("axis " + Twine(axis) + " is out of range for rank " +
                Twine(rank));
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>> Node::normalizeAxes(ArrayRef<int64_t> axes,
                                                    int64_t rank) {
  SmallVector<int64_t> out;
  for (int64_t a : axes) {
    FailureOr<int64_t> axis = normalizeAxis(a, rank);
    if (failed(axis))
      return mlir::failure();
    out.push_back(*axis);
  }
  llvm::sort(out);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Value Node::scalar(Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute attr;
  if (auto f = dyn_cast<FloatType>(element)) {
    APFloat v(value);
    bool lost = false;
    v.convert(f.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    attr = DenseElementsAttr::get(type, v);
  } else if (element.isInteger(1)) {
    attr = DenseElementsAttr::get(type, value != 0);
  } else {
    attr = DenseElementsAttr::get(type, APInt(element.getIntOrFloatBitWidth(),
                                              uint64_t(int64_t(value)),
                                              /*isSigned=*/true));
  }
  return ConstantOp::create(b, loc, cast<ElementsAttr>(attr));
}

Value Node::i64Tensor(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
}

Value Node::reshape(Value v, ArrayRef<int64_t> shape) {
  if (typeOf(v).getShape() == shape)
    return v;
  return make<ReshapeOp>(typeOf(v).clone(shape), v);
}

Value Node::transpose(Value v, ArrayRef<int64_t> perm) {
  return make<TransposeOp>(v, perm);
}

Value Node::castTo(Value v, Type element) {
  if (elementOf(v) == element)
    return v;
  return make<CastOp>(typeOf(v).clone(element), v);
}

Value Node::broadcastTo(Value v, ArrayRef<int64_t> shape) {
  if (typeOf(v).getShape() == shape)
    return v;
  return make<BroadcastToOp>(typeOf(v).clone(shape), v);
}

/// Whether `shapes` broadcast together (NumPy, the reference kernels'
/// rule).
static bool shapesBroadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
  Shape shape;
  for (ArrayRef<int64_t> own : shapes) {
    Shape next;
    if (!kernels::broadcastShapes(shape, Shape(own.begin(), own.end()), next))
      return false;
    shape = std::move(next);
  }
  return true;
}

bool Node::broadcastable(ValueRange values, bool sameElement) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : values) {
    if (sameElement && elementOf(v) != elementOf(values[0])) {
      (void)fail("operands of different element types");
      return false;
    }
    shapes.push_back(typeOf(v).getShape());
  }
  if (!shapesBroadcast(shapes)) {
    (void)fail("operand shapes do not broadcast");
    return false;
  }
  return true;
}

Value Node::select(Value c, Value t, Value f) {
  if (!elementOf(c).isInteger(1)) {
    (void)fail("the condition is not boolean");
    return t;
  }
  if (!broadcastable({t, f}) || !broadcastable({c, t}, false) ||
      !broadcastable({c, f}, false))
    return t;
  return make<SelectOp>(c, t, f);
}

Value Node::matmul(Value a, Value b) {
  RankedTensorType ta = typeOf(a), tb = typeOf(b);
  if (ta.getRank() < 2 || tb.getRank() < 2 ||
      ta.getElementType() != tb.getElementType() ||
      ta.getDimSize(ta.getRank() - 1) != tb.getDimSize(tb.getRank() - 2)) {
    (void)fail("matrix product of " + typeString(ta) + " and " +
               typeString(tb));
    return a;
  }
  // The batch dimensions must broadcast.
  if (!shapesBroadcast(
          {ta.getShape().drop_back(2), tb.getShape().drop_back(2)})) {
    (void)fail("the batch dimensions of a matrix product do not broadcast");
    return a;
  }
  return make<MatmulOp>(a, b);
}

Value Node::concat(ValueRange values, int64_t axis) {
  RankedTensorType first = typeOf(values.front());
  for (Value v : values) {
    RankedTensorType t = typeOf(v);
    bool ok = t.getRank() == first.getRank() &&
              t.getElementType() == first.getElementType();
    for (int64_t d = 0; ok && d < t.getRank(); ++d)
      ok = d == axis || t.getDimSize(d) == first.getDimSize(d);
    if (!ok) {
      (void)fail("concatenated tensors differ off the axis");
      return values.front();
    }
  }
  return make<ConcatOp>(values, uint64_t(axis));
}

Value Node::iota(int64_t n, int64_t axis, int64_t rank, Type element) {
  SmallVector<int64_t> shape(size_t(rank), 1);
  shape[size_t(axis)] = n;
  auto type = RankedTensorType::get(shape, element);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(isa<FloatType>(element)
                         ? Attribute(FloatAttr::get(element, double(i)))
                         : Attribute(IntegerAttr::get(element, i)));
  return ConstantOp::create(
      b, loc, cast<ElementsAttr>(DenseElementsAttr::get(type, values)));
}

Value Node::oneHot(Value indices, int64_t n, int64_t axis) {
  // indices [..., 1 at axis, ...] == iota [1, ..., n, ..., 1].
  int64_t rank = rankOf(indices);
  return compare(CmpPredicate::eq, indices,
                 iota(n, axis, rank, elementOf(indices)));
}

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

namespace {

/// Initializers above this many elements become resource blobs (copied
/// once, never printed inline); smaller ones dense literals that fold.
constexpr int64_t kBlobElements = 1024;

class Importer final : public ImportContext {
public:
  Importer(MLIRContext &context, StringRef path, const OnnxImportOptions &o)
      : context(context), path(path.str()), options(o), b(&context) {}

  OwningOpRef<ModuleOp> run(StringRef bytes);

  // ImportContext.
  Mode mode() const override { return mode_; }
  bool isParameter(Value v) const override {
    return kindOf(v) == InitializerRole::Parameter;
  }
  bool isState(Value v) const override {
    return kindOf(v) == InitializerRole::State;
  }
  ElementsAttr freeze(Value v) override;
  void updateState(Value state, Value next) override {
    stateUpdates.emplace_back(state, next);
  }
  Value dropoutKey() override;

private:
  Location where(const Twine &what) {
    return NameLoc::get(StringAttr::get(&context, path + ":" + what));
  }
  void error(Location loc, const Twine &message) {
    emitError(loc) << message;
    ++errors;
  }

  FailureOr<ElementsAttr> tensor(const onnx::TensorProto &t, Location loc);
  FailureOr<std::string> externalData(const onnx::TensorProto &t, size_t bytes,
                                      Location loc);
  FailureOr<RankedTensorType> inputType(const onnx::ValueInfoProto &info,
                                        Location loc);
  void convertNode(int index, const onnx::NodeProto &node);
  /// Reads the initializers and the --constant-input files once.
  void readConstants(const onnx::GraphProto &graph);
  /// The graph as function `name` in `mode`, appended to the module at the
  /// builder; null after errors.
  func::FuncOp buildFunction(const onnx::GraphProto &graph, StringRef name,
                             Mode mode);
  InitializerRole::Kind kindOf(Value v) const {
    auto it = initializerArgs.find(v);
    return it == initializerArgs.end() ? InitializerRole::Constant
                                       : roles[it->second].kind;
  }

  MLIRContext &context;
  std::string path;
  OnnxImportOptions options;
  OpBuilder b;
  onnx::ModelProto model;
  int64_t opset = 0;
  int errors = 0;
  int blobs = 0;
  llvm::StringMap<Value> values;
  /// The values that are sequences of tensors.
  llvm::StringMap<Node::Sequence> sequences;
  /// Outputs of nodes that failed: their users are skipped silently.
  llvm::StringSet<> poisoned;
  ConverterMap converters;

  /// Per initializer (graph order): its value (null if it cannot be read)
  /// and its role.
  std::vector<ElementsAttr> initializers;
  std::vector<InitializerRole> roles;
  /// Graph inputs given a value by --constant-input.
  llvm::StringMap<ElementsAttr> constantInputs;
  /// Of the function being built: its mode, the arguments of initializers
  /// (the initializer's position), the state updates and the dropout key.
  Mode mode_ = Mode::Inference;
  Block *body = nullptr;
  llvm::DenseMap<Value, size_t> initializerArgs;
  SmallVector<std::pair<Value, Value>> stateUpdates;
  Value key;
  /// A parameter was frozen by a converter: the import starts again.
  bool frozeParameter = false;
};

FailureOr<std::string> Importer::externalData(const onnx::TensorProto &t,
                                              size_t bytes, Location loc) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &e : t.external_data()) {
    if (e.key() == "location")
      location = e.value();
    else if (e.key() == "offset" || e.key() == "length") {
      char *end = nullptr;
      long long v = std::strtoll(e.value().c_str(), &end, 10);
      if (e.value().empty() || *end || v < 0) {
        error(loc, "external data " + e.key() + " '" + e.value() +
                       "' is not a non-negative integer");
        return failure();
      }
      (e.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty()) {
    error(loc, "external data without a location");
    return failure();
  }
  // Relative to the model's directory, and inside it.
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  SmallString<256> file(dir);
  llvm::sys::path::append(file, location);
  SmallString<256> realDir, realFile;
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::fs::real_path(dir, realDir) ||
      llvm::sys::fs::real_path(file, realFile) ||
      !StringRef(realFile).starts_with((realDir + "/").str())) {
    error(loc, "external data file '" + location +
                   "' is missing or outside the model's directory (only "
                   "files beside the model or below it are read)");
    return failure();
  }
  if (length >= 0 && uint64_t(length) != bytes) {
    error(loc, "external data length " + Twine(length) + " is not the " +
                   Twine(bytes) + " bytes the tensor holds");
    return failure();
  }
  FileBytes data;
  std::string message;
  uint64_t want = uint64_t(offset) + bytes;
  if (!readFile(std::string(realFile), data, message,
                [want](std::string_view) { return want; })) {
    error(loc, message);
    return failure();
  }
  if (data.size < want) {
    error(loc, "external data file '" + location + "' has " +
                   Twine(uint64_t(data.size)) + " bytes; the tensor needs " +
                   Twine(want));
    return failure();
  }
  return std::string(data.data.get() + offset, bytes);
}

FailureOr<ElementsAttr> Importer::tensor(const onnx::TensorProto &t,
                                         Location loc) {
  std::string typeName;
  Type element = elementTypeOf(&context, t.data_type(), &typeName);
  if (!element) {
    error(loc, "tensor of " + typeName +
                   ": fusec supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, BOOL, "
                   "INT32 and INT64");
    return failure();
  }
  SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  std::optional<int64_t> count =
      checkedNumElements(Shape(shape.begin(), shape.end()));
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }) || !count) {
    error(loc, "tensor dimensions are negative or too large");
    return failure();
  }
  auto type = RankedTensorType::get(shape, element);
  DType dtype = *toDType(element);
  size_t width = dtypeSize(dtype);
  std::optional<int64_t> byteCount = checkedMul(*count, int64_t(width));
  if (!byteCount) {
    error(loc, "tensor too large");
    return failure();
  }
  size_t bytes = size_t(*byteCount);
  // The little-endian bytes in fusec's layout (i1 as one byte per element).
  std::string raw;
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    FailureOr<std::string> data = externalData(t, bytes, loc);
    if (failed(data))
      return failure();
    raw = std::move(*data);
  } else if (t.has_raw_data()) {
    if (t.raw_data().size() != bytes) {
      error(loc, "raw data of " + Twine(uint64_t(t.raw_data().size())) +
                     " bytes for " + Twine(uint64_t(bytes)) + " expected");
      return failure();
    }
    raw = t.raw_data();
  } else {
    raw.resize(bytes);
    // (An empty repeated field's data() may be null, which memcpy may not
    // be given even for 0 bytes.)
    auto copy = [&](const void *from) {
      if (bytes)
        std::memcpy(raw.data(), from, bytes);
    };
    auto check = [&](int64_t have) {
      if (have == *count)
        return true;
      error(loc, "tensor holds " + Twine(have) + " values for " +
                     Twine(*count) + " elements");
      return false;
    };
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      if (!check(t.float_data_size()))
        return failure();
      copy(t.float_data().data());
      break;
    case onnx::TensorProto::DOUBLE:
      if (!check(t.double_data_size()))
        return failure();
      copy(t.double_data().data());
      break;
    case onnx::TensorProto::INT64:
      if (!check(t.int64_data_size()))
        return failure();
      copy(t.int64_data().data());
      break;
    default: // INT32, BOOL, FLOAT16, BFLOAT16: in int32_data.
      if (!check(t.int32_data_size()))
        return failure();
      for (int64_t i = 0; i < *count; ++i) {
        int32_t v = t.int32_data(int(i));
        if (width == 4)
          std::memcpy(&raw[size_t(i) * 4], &v, 4);
        else if (width == 2) {
          uint16_t h = uint16_t(v);
          std::memcpy(&raw[size_t(i) * 2], &h, 2);
        } else
          raw[size_t(i)] = char(v != 0);
      }
    }
  }
  if (element.isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : raw)
      bits.push_back(c != 0);
    return cast<ElementsAttr>(DenseElementsAttr::get(type, bits));
  }
  if (*count <= kBlobElements)
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(raw.data(), raw.size())));
  return cast<ElementsAttr>(DenseResourceElementsAttr::get(
      type, "onnx_" + std::to_string(blobs++),
      HeapAsmResourceBlob::allocateAndCopyInferAlign(
          ArrayRef<char>(raw.data(), raw.size()))));
}

FailureOr<RankedTensorType>
Importer::inputType(const onnx::ValueInfoProto &info, Location loc) {
  const onnx::TypeProto &type = info.type();
  if (!type.has_tensor_type()) {
    error(loc, "input '" + info.name() +
                   "' is not a tensor (sequences, maps and optionals are not "
                   "supported)");
    return failure();
  }
  std::string typeName;
  Type element =
      elementTypeOf(&context, type.tensor_type().elem_type(), &typeName);
  if (!element) {
    error(loc, "input '" + info.name() + "' has element type " + typeName +
                   ": fusec supports FLOAT, FLOAT16, BFLOAT16, DOUBLE, BOOL, "
                   "INT32 and INT64");
    return failure();
  }
  auto bound = options.inputShapes.find(info.name());
  if (!type.tensor_type().has_shape()) {
    if (bound == options.inputShapes.end()) {
      error(loc, "input '" + info.name() +
                     "' has no shape: give it with --input-shape=" +
                     info.name() + "=D0xD1x...");
      return failure();
    }
    return RankedTensorType::get(bound->second, element);
  }
  const onnx::TensorShapeProto &shape = type.tensor_type().shape();
  if (bound != options.inputShapes.end() &&
      int(bound->second.size()) != shape.dim_size()) {
    error(loc, "--input-shape for '" + info.name() +
                   "' does not match the model's shape of rank " +
                   Twine(shape.dim_size()));
    return failure();
  }
  SmallVector<int64_t> dims;
  for (int d = 0; d < shape.dim_size(); ++d) {
    const onnx::TensorShapeProto::Dimension &dim = shape.dim(d);
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      dims.push_back(dim.dim_value());
      continue;
    }
    if (bound != options.inputShapes.end()) {
      dims.push_back(bound->second[size_t(d)]);
      continue;
    }
    if (d == 0 && options.batch > 0) {
      dims.push_back(options.batch);
      continue;
    }
    std::string symbol =
        dim.has_dim_param() ? " ('" + dim.dim_param() + "')" : "";
    error(loc, "input '" + info.name() + "' dimension " + Twine(d) + symbol +
                   " is dynamic: bind it with --input-shape=" + info.name() +
                   "=D0xD1x..." + (d == 0 ? " or --batch=N" : ""));
    return failure();
  }
  if (bound != options.inputShapes.end() && !llvm::equal(bound->second, dims)) {
    error(loc, "--input-shape for '" + info.name() +
                   "' differs from the model's static dimensions");
    return failure();
  }
  if (!checkedNumElements(Shape(dims.begin(), dims.end()))) {
    error(loc, "input '" + info.name() + "' has too many elements");
    return failure();
  }
  return RankedTensorType::get(dims, element);
}

void Importer::convertNode(int index, const onnx::NodeProto &node) {
  std::string domain = node.domain();
  Location loc =
      where("node " + Twine(index) + " '" + node.name() + "' (" +
            (domain.empty() ? "" : domain + ".") + node.op_type() + ")");
  auto poison = [&] {
    for (const std::string &out : node.output())
      if (!out.empty())
        poisoned.insert(out);
  };
  SmallVector<Value> inputs;
  SmallVector<const Node::Sequence *> sequenceInputs;
  for (const std::string &name : node.input()) {
    sequenceInputs.push_back(nullptr);
    if (name.empty()) {
      inputs.push_back(Value());
      continue;
    }
    if (poisoned.contains(name))
      return poison();
    if (auto it = sequences.find(name); it != sequences.end()) {
      sequenceInputs.back() = &it->second;
      inputs.push_back(Value());
      continue;
    }
    Value v = values.lookup(name);
    if (!v) {
      error(loc, "input '" + name +
                     "' is not computed before this node "
                     "(the graph is not in topological order "
                     "or the name is unknown)");
      return poison();
    }
    inputs.push_back(v);
  }
  if (!domain.empty() && domain != "ai.onnx") {
    error(loc, "unsupported ONNX operator '" + node.op_type() +
                   "' of domain '" + domain +
                   "': fusec imports the default domain (ai.onnx)");
    return poison();
  }
  auto it = converters.find(node.op_type());
  if (it == converters.end()) {
    error(loc, "unsupported ONNX operator '" + node.op_type() + "' (opset " +
                   Twine(opset) + ")");
    return poison();
  }
  Block *block = b.getInsertionBlock();
  b.setInsertionPointToEnd(block);
  Operation *mark = block->empty() ? nullptr : &block->back();
  Node n(node, index, opset, *this, b, loc, inputs, sequenceInputs);
  LogicalResult converted = it->second(n);
  if (failed(converted) || !n.failure.empty()) {
    // What the node built is discarded (it may not verify).
    while (!block->empty() && &block->back() != mark) {
      Operation *op = &block->back();
      op->dropAllUses();
      op->erase();
    }
    error(loc, "cannot import '" + node.op_type() +
                   "': " + (n.failure.empty() ? "unsupported use" : n.failure));
    return poison();
  }
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string &name = node.output(i);
    if (name.empty())
      continue;
    if (auto it = n.sequenceOutputs.find(unsigned(i));
        it != n.sequenceOutputs.end()) {
      sequences[name] = it->second;
      continue;
    }
    Value v = size_t(i) < n.outputs.size() ? n.outputs[size_t(i)] : Value();
    if (!v) {
      error(loc, "cannot import '" + node.op_type() + "': output " + Twine(i) +
                     " ('" + name + "') is not supported");
      poisoned.insert(name);
      continue;
    }
    values[name] = v;
  }
}

ElementsAttr Importer::freeze(Value v) {
  size_t i = initializerArgs.lookup(v);
  roles[i] = InitializerRole();
  frozeParameter = true;
  const std::string &name = model.graph().initializer(int(i)).name();
  emitWarning(where("initializer '" + name + "'"))
      << "initializer '" << name
      << "' is not trained: the import needs its value as a constant";
  return initializers[i];
}

Value Importer::dropoutKey() {
  if (key)
    return key;
  key = body->addArgument(RankedTensorType::get({2}, b.getI32Type()),
                          where("dropout key"));
  return key;
}

void Importer::readConstants(const onnx::GraphProto &graph) {
  for (const onnx::TensorProto &t : graph.initializer()) {
    FailureOr<ElementsAttr> attr =
        tensor(t, where("initializer '" + t.name() + "'"));
    initializers.push_back(succeeded(attr) ? *attr : ElementsAttr());
  }
  llvm::StringSet<> initialized;
  for (const onnx::TensorProto &t : graph.initializer())
    initialized.insert(t.name());
  for (const onnx::ValueInfoProto &info : graph.input()) {
    auto constant = options.constantInputs.find(info.name());
    if (initialized.contains(info.name()) ||
        constant == options.constantInputs.end())
      continue;
    Location loc = where("input '" + info.name() + "'");
    std::string message;
    Buffer value = readNpy(constant->second, message);
    std::string typeName;
    Type element = elementTypeOf(
        &context, info.type().tensor_type().elem_type(), &typeName);
    Shape shape = value ? value.shape() : Shape();
    auto type = RankedTensorType::get(
        SmallVector<int64_t>(shape.begin(), shape.end()), element);
    if (!value || !element || toDType(element) != value.dtype()) {
      error(loc, "--constant-input for '" + info.name() + "': " +
                     (value ? "the file holds " +
                                  std::string(dtypeName(value.dtype())) +
                                  ", the input is " + typeName
                            : message));
      continue;
    }
    constantInputs[info.name()] = bufferToDense(value, type);
  }
  Location fileLoc = where("model");
  for (const auto &[name, path] : options.constantInputs)
    if (!llvm::any_of(graph.input(), [&, &name = name](const auto &info) {
          return info.name() == name;
        }))
      error(fileLoc, "--constant-input names '" + name +
                         "', which is not an input of the model");
  for (const auto &[name, shape] : options.inputShapes)
    if (!llvm::any_of(graph.input(), [&, &name = name](const auto &info) {
          return info.name() == name && !initialized.contains(name);
        }))
      error(fileLoc, "--input-shape names '" + name +
                         "', which is not an input of the model");
}

func::FuncOp Importer::buildFunction(const onnx::GraphProto &graph,
                                     StringRef name, Mode mode) {
  mode_ = mode;
  values.clear();
  sequences.clear();
  poisoned.clear();
  initializerArgs.clear();
  stateUpdates.clear();
  key = Value();
  Location funcLoc = where("graph '" + graph.name() + "'");
  auto func = func::FuncOp::create(b, funcLoc, name, b.getFunctionType({}, {}));
  body = func.addEntryBlock();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);
  Builder attrs(&context);
  SmallVector<NamedAttrList> argAttrs;
  auto named = [&](StringRef n) {
    NamedAttrList list;
    list.set(kNameAttrName, attrs.getStringAttr(n));
    return list;
  };
  // Initializers: constants, or (imported for training) arguments after
  // the inputs.
  llvm::StringSet<> initialized;
  bool training = mode != Mode::Inference;
  for (auto [i, t] : llvm::enumerate(graph.initializer())) {
    initialized.insert(t.name());
    if (!initializers[i]) {
      poisoned.insert(t.name());
      continue;
    }
    if (!training || roles[i].kind == InitializerRole::Constant)
      values[t.name()] = ConstantOp::create(
          b, where("initializer '" + t.name() + "'"), initializers[i]);
  }
  // Inputs that are not initializers: arguments (or constants).
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (initialized.contains(info.name()))
      continue;
    Location loc = where("input '" + info.name() + "'");
    if (options.constantInputs.count(info.name())) {
      if (ElementsAttr value = constantInputs.lookup(info.name()))
        values[info.name()] = ConstantOp::create(b, loc, value);
      else
        poisoned.insert(info.name());
      continue;
    }
    FailureOr<RankedTensorType> type = inputType(info, loc);
    if (failed(type)) {
      poisoned.insert(info.name());
      continue;
    }
    values[info.name()] = body->addArgument(*type, loc);
    argAttrs.push_back(named(info.name()));
  }
  if (training) {
    for (auto kind : {InitializerRole::Parameter, InitializerRole::State})
      for (auto [i, t] : llvm::enumerate(graph.initializer())) {
        if (roles[i].kind != kind || !initializers[i])
          continue;
        Value arg = body->addArgument(initializers[i].getType(),
                                      where("initializer '" + t.name() + "'"));
        values[t.name()] = arg;
        initializerArgs[arg] = i;
        NamedAttrList list = named(t.name());
        if (kind == InitializerRole::Parameter)
          list.set(kParamAttrName, attrs.getUnitAttr());
        else
          list.set(kStateAttrName, attrs.getStringAttr(roles[i].state));
        list.set(kInitAttrName, initializers[i]);
        argAttrs.push_back(list);
      }
  }
  for (auto [i, node] : llvm::enumerate(graph.node()))
    convertNode(int(i), node);
  SmallVector<Value> results;
  SmallVector<NamedAttrList> resultAttrs;
  for (const onnx::ValueInfoProto &info : graph.output()) {
    if (poisoned.contains(info.name()))
      continue;
    Value v = values.lookup(info.name());
    if (!v) {
      error(where("output '" + info.name() + "'"),
            "output '" + info.name() + "' is not computed by the graph");
      continue;
    }
    results.push_back(v);
    resultAttrs.push_back(named(info.name()));
  }
  if (errors)
    return nullptr;
  // The training function returns the next value of each state argument.
  auto updates = [&](Value state, Value next) {
    results.push_back(next);
    NamedAttrList list =
        named(cast<StringAttr>(
                  argAttrs[cast<BlockArgument>(state).getArgNumber()].get(
                      kNameAttrName))
                  .getValue());
    list.set(kUpdatesAttrName, attrs.getI64IntegerAttr(
                                   cast<BlockArgument>(state).getArgNumber()));
    resultAttrs.push_back(list);
  };
  if (key) {
    // The dropout key (seed, step): the step counts training steps.
    NamedAttrList list = named("dropout.key");
    list.set(kStateAttrName, attrs.getStringAttr("dropout.key"));
    auto type = RankedTensorType::get({2}, b.getI32Type());
    list.set(kInitAttrName,
             DenseElementsAttr::get(type, ArrayRef<int32_t>{0, 0}));
    argAttrs.push_back(list);
    Value one = ConstantOp::create(
        b, key.getLoc(), DenseElementsAttr::get(type, ArrayRef<int32_t>{0, 1}));
    stateUpdates.emplace_back(key, AddOp::create(b, key.getLoc(), key, one));
  }
  for (auto [state, next] : stateUpdates)
    updates(state, next);
  func::ReturnOp::create(b, funcLoc, results);
  func.setFunctionType(b.getFunctionType(body->getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  for (auto [i, list] : llvm::enumerate(argAttrs))
    func.setArgAttrs(unsigned(i), list.getDictionary(&context));
  for (auto [i, list] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(unsigned(i), list.getDictionary(&context));
  return func;
}

OwningOpRef<ModuleOp> Importer::run(StringRef bytes) {
  Location fileLoc = where("model");
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()), int(bytes.size()));
  stream.SetTotalBytesLimit(INT32_MAX);
  if (bytes.size() > size_t(INT32_MAX) ||
      !model.ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage()) {
    error(fileLoc, "not a valid ONNX model (the protobuf does not parse; "
                   "models over 2 GB keep their weights in external data "
                   "files)");
    return nullptr;
  }
  for (const onnx::OperatorSetIdProto &set : model.opset_import())
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  if (opset == 0) {
    error(fileLoc, "the model uses no default-domain (ai.onnx) opset: fusec "
                   "imports that domain only");
    return nullptr;
  }
  addElementwiseConverters(converters);
  addTensorConverters(converters);
  addNeuralNetworkConverters(converters);
  addIndexingConverters(converters);
  addAttentionConverters(converters);
  addSequenceConverters(converters);

  const onnx::GraphProto &graph = model.graph();
  readConstants(graph);
  SmallVector<bool> isFloat;
  for (ElementsAttr value : initializers)
    isFloat.push_back(value && isa<FloatType>(value.getElementType()) &&
                      value.getNumElements() > 0);
  if (failed(planInitializerRoles(graph, options, isFloat, roles,
                                  [&](const Twine &m) { error(fileLoc, m); })))
    return nullptr;
  if (errors)
    return nullptr;
  bool training = llvm::any_of(roles, [](const InitializerRole &r) {
    return r.kind == InitializerRole::Parameter;
  });
  // A converter that needs a parameter's value freezes it: build again
  // without it (at most once per parameter).
  while (true) {
    frozeParameter = false;
    OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
    b.setInsertionPointToEnd(module->getBody());
    std::string name = options.functionName;
    func::FuncOp main =
        buildFunction(graph, name, training ? Mode::Training : Mode::Inference);
    if (!main)
      return nullptr;
    if (frozeParameter)
      continue;
    if (!training)
      return module;
    func::FuncOp eval = buildFunction(graph, name + "_eval", Mode::Evaluation);
    if (!eval)
      return nullptr;
    if (frozeParameter)
      continue;
    // The same arguments: the dropout key, if the training function draws,
    // is the evaluation twin's last (unused) argument.
    Block &evalBody = eval.getBody().front();
    for (unsigned i = eval.getNumArguments(); i < main.getNumArguments(); ++i)
      evalBody.addArgument(main.getArgument(i).getType(),
                           main.getArgument(i).getLoc());
    eval.setFunctionType(b.getFunctionType(
        evalBody.getArgumentTypes(), eval.getFunctionType().getResults()));
    SmallVector<DictionaryAttr> argAttrs;
    main.getAllArgAttrs(argAttrs);
    eval.setAllArgAttrs(argAttrs);
    main->setAttr(kEvalAttrName, FlatSymbolRefAttr::get(eval.getSymNameAttr()));
    if (!llvm::any_of(roles, [](const InitializerRole &r) {
          return r.kind == InitializerRole::Parameter;
        })) {
      error(fileLoc, "nothing to train: the import needs the value of every "
                     "initializer --trainable matches as a constant");
      return nullptr;
    }
    return module;
  }
}

} // namespace

OwningOpRef<ModuleOp> fusec::importOnnx(MLIRContext &context, StringRef path,
                                        StringRef bytes,
                                        const OnnxImportOptions &options) {
  context.getOrLoadDialect<FusecDialect>();
  context.getOrLoadDialect<func::FuncDialect>();
  Importer importer(context, path, options);
  return importer.run(bytes);
}
