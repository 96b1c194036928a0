//===- PlanPrinter.h - An executable's plan, for people ---------*- C++ -*-===//
//
// What `fusec-run --print-plan` prints: the memory plan's figures, every
// buffer (temporaries with their arena offsets), kernel and step (matmul
// steps with their epilogue and the cuBLASLt calls that compute them).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_PLANPRINTER_H
#define FUSEC_RUNTIME_PLANPRINTER_H

#include "fusec/Runtime/Executable.h"

#include <string>

namespace fusec::rt {

/// The memory figures in one line: "arena 2304 bytes = 1.00x the lower
/// bound 2304 (one buffer per temporary: 3584, 1280 saved); constants 20,
/// workspace 33554432; peak at step 1 (launch of kernel 0 'fusec_ab')".
std::string formatMemoryFigures(const Executable &exe);

/// The whole plan, several lines.
std::string formatPlan(const Executable &exe);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_PLANPRINTER_H
