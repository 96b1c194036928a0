//===- Passes.td - fusec conversion passes -----------------*- tablegen -*-===//

#ifndef FUSEC_CONVERSION_PASSES
#define FUSEC_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def FusecImportTosa : Pass<"fusec-import-tosa", "mlir::ModuleOp"> {
  let summary = "Import upstream TOSA operations into the fusec dialect";
  let description = [{
    Replaces every operation of the upstream `tosa` dialect by its `fusec`
    equivalent. Each conversion preserves TOSA's semantics exactly (checked
    against upstream MLIR's own CPU lowering of TOSA in fusec's tests):

    | TOSA | fusec |
    |------|-------|
    | `const` | `constant` |
    | `const_shape` | read by its users, then erased |
    | `add` `sub` `pow` | `add` `sub` `pow` |
    | `mul` (shift 0) | `mul` |
    | `maximum` `minimum` | `max` `min`; `nan_mode = IGNORE` adds `compare ne` + `select` so that a NaN operand yields the other operand |
    | `abs` `exp` `log` `tanh` `sigmoid` `erf` `reciprocal` `rsqrt` | same name |
    | `negate` (zero points 0) | `neg` |
    | `clamp` | `max` then `min` against scalar constants; `nan_mode = IGNORE` maps NaN to `min_val` |
    | `cast` | `cast` |
    | `greater` `greater_equal` `equal` | `compare gt` / `ge` / `eq` |
    | `select` | `select` |
    | `concat` `slice` `reshape` `transpose` | `concat` `slice` (stride 1) `reshape` `transpose` |
    | `tile` | `reshape` + `broadcast_to` + `reshape` (index arithmetic, no copies before fusion decides) |
    | `matmul` (zero points 0) | `matmul`; operands are first cast to the result element type when TOSA accumulates in a wider type (f16 x f16 -> f32) |
    | `reduce_sum` `reduce_product` `reduce_max` `reduce_min` | `reduce_*` over one axis with `keep_dims`; `nan_mode = IGNORE` skips NaNs (all-NaN gives NaN) |

    Every other TOSA operation, and any listed one used with something fusec
    cannot represent (dynamic or unranked shapes, element types other than
    f32/f16/bf16/i1/i32/i64, non-zero shift or zero points, shape operands
    that are not `tosa.const_shape`), is reported as an error at its location
    naming the operation and the reason. Nothing is dropped silently.
  }];
  let dependentDialects = ["::fusec::FusecDialect"];
}

#endif // FUSEC_CONVERSION_PASSES
