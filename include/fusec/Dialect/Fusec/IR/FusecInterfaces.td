//===- FusecInterfaces.td - fusec op interfaces ------------*- tablegen -*-===//

#ifndef FUSEC_INTERFACES
#define FUSEC_INTERFACES

include "mlir/IR/OpBase.td"

def Fusec_EvaluableOpInterface : OpInterface<"EvaluableOpInterface"> {
  let cppNamespace = "::fusec";
  let description = [{
    An operation whose results the reference interpreter can compute from its
    operands' values. This is the one executable definition of the
    operation's semantics: the interpreter calls it, and constant folding
    calls it on constant operands.
  }];
  let methods = [
    InterfaceMethod<[{
        Computes the results from `operands` (one buffer per operand, in
        order) into `results` (one buffer per result). Buffers are allocated
        through `ctx`; on failure the reason is in `ctx`.
      }],
      "::llvm::LogicalResult", "evaluate",
      (ins "::llvm::ArrayRef<::fusec::Buffer>":$operands,
           "::fusec::EvalContext &":$ctx,
           "::llvm::SmallVectorImpl<::fusec::Buffer> &":$results)>
  ];
}

#endif // FUSEC_INTERFACES
