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

def Fusec_OpInterface : OpInterface<"FusecOpInterface"> {
  let cppNamespace = "::fusec";
  let description = [{
    The properties every fusec operation declares with its definition (the
    `Fusec_Properties` argument of `Fusec_Op`): the passes read them here
    and list no operations of their own. See OpProperties.h.
  }];
  let methods = [
    StaticInterfaceMethod<"How the fusion planner treats the operation.",
      "::fusec::FusionClass", "getFusionClass", (ins), [{}],
      [{ return ConcreteOp::kFusionClass; }]>,
    StaticInterfaceMethod<[{
        The class `fusec-mixed-precision` paints the operation with unless
        its lists say otherwise.
      }],
      "::fusec::PrecisionClass", "getPrecisionClass", (ins), [{}],
      [{ return ConcreteOp::kPrecisionClass; }]>,
    StaticInterfaceMethod<[{
        Whether computing the operation again per element is costly.
      }],
      "::fusec::Cost", "getCost", (ins), [{}],
      [{ return ConcreteOp::kCost; }]>,
  ];
}

def Fusec_ReductionOpInterface : OpInterface<"ReductionOpInterface"> {
  let cppNamespace = "::fusec";
  let description = [{
    An operation that reduces its one operand over `axes` (strictly
    increasing), dropping them or, with `keep_dims`, keeping them as 1.
  }];
  let methods = [
    InterfaceMethod<"The reduced tensor.", "::mlir::Value", "getInput">,
    InterfaceMethod<"The reduced dimensions.", "::llvm::ArrayRef<int64_t>",
      "getAxes">,
    InterfaceMethod<"Whether the reduced dimensions stay as 1.", "bool",
      "getKeepDims">,
    StaticInterfaceMethod<"How the reduced elements combine.",
      "::fusec::ReductionCombiner", "getCombiner", (ins), [{}],
      [{ return ConcreteOp::kCombiner; }]>,
  ];
}

def Fusec_DifferentiableOpInterface
    : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::fusec";
  let description = [{
    An operation with a derivative rule: reverse-mode automatic
    differentiation (`fusec-autodiff`) turns the adjoints of its results into
    adjoints of its operands with it. Every fusec operation that computes
    declares it; the rules are in FusecGradients.cpp.
  }];
  let methods = [
    InterfaceMethod<[{
        Gives each operand that `adjoints.wants` its adjoint, from the
        adjoints of the results (`adjoints.of`), with the builders of
        `adjoints`, which insert at the gradient function's end.
      }],
      "void", "backprop", (ins "::fusec::Adjoints &":$adjoints)>,
    InterfaceMethod<[{
        Why the rule cannot differentiate this operation as configured (an
        attribute value it has no rule for), or empty when it can.
      }],
      "std::string", "notDifferentiable", (ins), [{}],
      [{ return std::string(); }]>,
  ];
}

#endif // FUSEC_INTERFACES
