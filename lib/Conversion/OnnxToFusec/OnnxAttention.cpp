//===- OnnxAttention.cpp - ONNX Attention (opset 23) ----------------------===//
//
// Scaled dot-product attention as torch.onnx emits it for
// scaled_dot_product_attention: Q, K, V in [B, heads, S, H] (or [B, S,
// heads * H] with q_num_heads/kv_num_heads), an optional boolean or
// additive mask, past keys and values concatenated in front, grouped-query
// heads (each key/value head serves q_heads / kv_heads consecutive query
// heads), causal masking, a soft cap, and an explicit scale (default
// 1/sqrt(H)). Composed of matmuls, a softmax and selects, in the order of
// the ONNX reference: QK^T scaled, plus the mask, soft-capped, softmax,
// times V.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include <cmath>

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

/// [B, S, heads * H] -> [B, heads, S, H].
Value splitHeads(Node &n, Value v, int64_t heads) {
  ArrayRef<int64_t> s = n.typeOf(v).getShape();
  return n.transpose(n.reshape(v, {s[0], s[1], heads, s[2] / heads}),
                     {0, 2, 1, 3});
}

LogicalResult attention(Node &n) {
  for (unsigned i = 0; i < 3; ++i)
    if (!n.input(i))
      return n.fail("Q, K and V are required");
  Value q = n.input(0), k = n.input(1), v = n.input(2);
  Value mask = n.input(3), pastK = n.input(4), pastV = n.input(5);
  if (n.input(6))
    return n.fail("the nonpad_kv_seqlen input is not supported");
  Type t = n.elementOf(q);
  if (!isa<FloatType>(t) || n.elementOf(k) != t || n.elementOf(v) != t)
    return n.fail("Q, K and V must be floats of one type");
  if (n.getInt("qk_matmul_output_mode", 0) != 0 || n.wantsOutput(3))
    return n.fail("the qk_matmul_output output is not supported");
  bool threeD = n.rankOf(q) == 3;
  if (threeD) {
    int64_t qHeads = n.getInt("q_num_heads", 0);
    int64_t kvHeads = n.getInt("kv_num_heads", 0);
    if (qHeads < 1 || kvHeads < 1 || n.typeOf(q).getDimSize(2) % qHeads ||
        n.typeOf(k).getDimSize(2) % kvHeads ||
        n.typeOf(v).getDimSize(2) % kvHeads)
      return n.fail("3-D inputs need q_num_heads and kv_num_heads that "
                    "divide their last dimensions");
    q = splitHeads(n, q, qHeads);
    k = splitHeads(n, k, kvHeads);
    v = splitHeads(n, v, kvHeads);
  }
  if (n.rankOf(q) != 4 || n.rankOf(k) != 4 || n.rankOf(v) != 4)
    return n.fail("Q, K and V must have rank 3 or 4");
  if (pastK)
    k = n.concat({pastK, k}, 2);
  if (pastV)
    v = n.concat({pastV, v}, 2);
  ArrayRef<int64_t> qs = n.typeOf(q).getShape(), ks = n.typeOf(k).getShape();
  int64_t batch = qs[0], qHeads = qs[1], sq = qs[2], h = qs[3];
  int64_t kvHeads = ks[1], skv = ks[2];
  if (kvHeads < 1 || qHeads % kvHeads || ks[3] != h)
    return n.fail("the key heads must divide the query heads, with the "
                  "query's head size");
  Value presentK = k, presentV = v;
  // Grouped-query attention: repeat each key/value head.
  if (kvHeads != qHeads) {
    int64_t repeat = qHeads / kvHeads;
    auto widen = [&](Value x) {
      ArrayRef<int64_t> s = n.typeOf(x).getShape();
      Value e = n.reshape(x, {s[0], s[1], 1, s[2], s[3]});
      e = n.broadcastTo(e, {s[0], s[1], repeat, s[2], s[3]});
      return n.reshape(e, {s[0], s[1] * repeat, s[2], s[3]});
    };
    k = widen(k);
    v = widen(v);
  }
  double scale = n.attribute("scale") ? n.getFloat("scale", 1.0f)
                                      : 1.0 / std::sqrt(double(h));
  Value scores = n.matmul(q, n.transpose(k, {0, 1, 3, 2}));
  scores = n.mul(scores, n.scalar(t, scale)); // [B, heads, Sq, Skv]
  Value negInf = n.scalar(t, -INFINITY);
  // The soft cap bounds the scores before the mask (a masked score stays
  // -inf).
  if (double softcap = n.getFloat("softcap", 0.0f); softcap > 0) {
    Value c = n.scalar(t, softcap);
    scores = n.mul(c, n.make<TanhOp>(n.div(scores, c)));
  }
  if (mask) {
    if (n.elementOf(mask).isInteger(1))
      scores = n.select(mask, scores, negInf);
    else
      scores = n.add(scores, n.castTo(mask, t));
  }
  if (n.getInt("is_causal", 0)) {
    SmallVector<bool> bits;
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = 0; j < skv; ++j)
        bits.push_back(j <= i);
    auto type = RankedTensorType::get({sq, skv}, n.b.getI1Type());
    Value causal = ConstantOp::create(
        n.b, n.loc, cast<ElementsAttr>(DenseElementsAttr::get(type, bits)));
    scores = n.select(causal, scores, negInf);
  }
  Value m = n.reduce<ReduceMaxOp>(scores, {3}, true);
  Value e = n.make<ExpOp>(n.sub(scores, m));
  Value p = n.div(e, n.reduce<ReduceSumOp>(e, {3}, true));
  Value y = n.matmul(p, v); // [B, heads, Sq, Hv]
  if (threeD) {
    int64_t hv = n.typeOf(y).getDimSize(3);
    y = n.reshape(n.transpose(y, {0, 2, 1, 3}), {batch, sq, qHeads * hv});
  }
  n.outputs.push_back(y);
  if (n.wantsOutput(1))
    n.outputs.push_back(presentK);
  if (n.wantsOutput(2))
    n.outputs.push_back(presentV);
  return success();
}

} // namespace

void fusec::onnx_import::addAttentionConverters(ConverterMap &map) {
  map["Attention"] = attention;
}
