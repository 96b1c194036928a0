//===- FusionSupport.h - What the fusion planner's parts share --*- C++ -*-===//
//
// Private to lib/Dialect/Fusec/Transforms: the operation classes and sizes
// that preparation (FusionPreparation.cpp), planning (Fusion.cpp) and
// application (FusionApplication.cpp) of the fusion plan share.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_LIB_TRANSFORMS_FUSIONSUPPORT_H
#define FUSEC_LIB_TRANSFORMS_FUSIONSUPPORT_H

#include "fusec/Dialect/Fusec/IR/FusecOps.h"
#include "fusec/Dialect/Fusec/IR/FusionForms.h"
#include "fusec/Dialect/Fusec/Transforms/Fusion.h"

#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace fusec::fusion {
using namespace mlir;

//===----------------------------------------------------------------------===//
// Operation classes and sizes
//===----------------------------------------------------------------------===//

/// fusionClassOf() with a cache per operation name: the interface lookup
/// behind it searches the op's interface map, too slow to repeat per use.
class FusionClassifier {
public:
  FusionClass operator()(Operation *op) {
    auto [it, inserted] = cache.try_emplace(op->getName().getAsOpaquePointer(),
                                            FusionClass::Boundary);
    if (inserted)
      it->second = fusionClassOf(op);
    return it->second;
  }

private:
  llvm::DenseMap<void *, FusionClass> cache;
};

inline bool isFusible(FusionClass c) {
  return c == FusionClass::Elementwise || c == FusionClass::Index ||
         c == FusionClass::Reduction;
}

/// Operations too costly to compute more than once per element.
inline bool isExpensive(Operation *op) {
  auto properties = dyn_cast<FusecOpInterface>(op);
  return properties && properties.getCost() == Cost::Expensive;
}

inline int64_t numElements(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  if (!t || !t.hasStaticShape())
    return 0;
  int64_t n = 1;
  bool overflow = false;
  for (int64_t d : t.getShape()) {
    if (d == 0)
      return 0;
    overflow |= __builtin_mul_overflow(n, d, &n);
  }
  return overflow ? INT64_MAX : n;
}

inline int64_t bytesOf(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  std::optional<DType> dtype = t ? toDType(t.getElementType()) : std::nullopt;
  if (!dtype)
    return 0;
  int64_t n = numElements(type), bytes;
  if (__builtin_mul_overflow(n, int64_t(dtypeSize(*dtype)), &bytes))
    return INT64_MAX;
  return bytes;
}

inline int64_t bytesOf(Value v) { return bytesOf(v.getType()); }

inline std::string describe(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "'" << op->getName() << "'";
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << loc.getLine() << ":" << loc.getColumn();
  return s;
}

inline std::string shapeString(RankedTensorType t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(t.getShape(), os, "x");
  return t.getRank() ? s : "scalar";
}

inline bool isSmallConstant(Operation *op, const FusionOptions &options) {
  auto constant = dyn_cast<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && (dense.isSplat() ||
                   dense.getNumElements() <= options.inlineConstantElements);
}

/// Structural equality of operations (name, operands, attributes, result
/// types), for the common-subexpression merge inside each new fusion.
struct EquivalentOp : llvm::DenseMapInfo<Operation *> {
  // Name and operands only: cheap, and copies made by prepareForFusion
  // agree on both; isEqual compares the rest.
  static unsigned getHashValue(const Operation *op) {
    auto *o = const_cast<Operation *>(op);
    return llvm::hash_combine(
        o->getName().getAsOpaquePointer(),
        llvm::hash_combine_range(o->operand_begin(), o->operand_end()));
  }
  static bool isEqual(const Operation *lhs, const Operation *rhs) {
    if (lhs == rhs)
      return true;
    if (lhs == getEmptyKey() || lhs == getTombstoneKey() ||
        rhs == getEmptyKey() || rhs == getTombstoneKey())
      return false;
    return OperationEquivalence::isEquivalentTo(
        const_cast<Operation *>(lhs), const_cast<Operation *>(rhs),
        OperationEquivalence::IgnoreLocations);
  }
};

} // namespace fusec::fusion

#endif // FUSEC_LIB_TRANSFORMS_FUSIONSUPPORT_H
