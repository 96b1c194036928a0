//===- Compositions.cpp - Operations built from fusec operations ---------===//

#include "fusec/Dialect/Fusec/IR/Compositions.h"
#include "fusec/Dialect/Fusec/IR/FusecOps.h"

using namespace mlir;
using namespace fusec;

Value fusec::buildArgExtremum(OpBuilder &b, Location loc, Value x, int64_t axis,
                              bool keepDims, bool isMax, bool last,
                              Type indexType) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank(), size = type.getDimSize(axis);
  Value ext =
      isMax ? Value(ReduceMaxOp::create(b, loc, x, ArrayRef<int64_t>{axis},
                                        /*keep_dims=*/true))
            : Value(ReduceMinOp::create(b, loc, x, ArrayRef<int64_t>{axis},
                                        /*keep_dims=*/true));
  Value hit = CompareOp::create(b, loc, CmpPredicate::eq, x, ext);
  if (isa<FloatType>(type.getElementType()))
    hit = OrOp::create(b, loc, hit,
                       CompareOp::create(b, loc, CmpPredicate::ne, x, x));
  // Positions along the axis, and "none" past either end.
  SmallVector<int64_t> shape(size_t(rank), 1);
  shape[size_t(axis)] = size;
  auto positionsType = RankedTensorType::get(shape, indexType);
  SmallVector<Attribute> positions;
  for (int64_t i = 0; i < size; ++i)
    positions.push_back(IntegerAttr::get(indexType, i));
  Value iota = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(DenseElementsAttr::get(positionsType, positions)));
  auto scalarType = RankedTensorType::get({}, indexType);
  Value none = ConstantOp::create(
      b, loc,
      cast<ElementsAttr>(DenseElementsAttr::get(
          scalarType, IntegerAttr::get(indexType, last ? -1 : size))));
  // The select broadcasts the positions (a broadcast_to of the constant
  // would fold into a constant of the input's size).
  Value candidates = SelectOp::create(b, loc, hit, iota, none);
  if (last)
    return ReduceMaxOp::create(b, loc, candidates, ArrayRef<int64_t>{axis},
                               keepDims);
  return ReduceMinOp::create(b, loc, candidates, ArrayRef<int64_t>{axis},
                             keepDims);
}
