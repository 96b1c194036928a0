//===- CpuConv.h - The cpu device's convolutions ----------------*- C++ -*-===//
//
// The cpu device computes each convolution step of a plan (fusec/Runtime/
// Conv.h) as one oneDNN convolution reading the NHWC input and writing the
// NHWC result where the plan has them, instead of the step's gather kernel
// (im2col) and matmul: no windows are written, and oneDNN's direct
// convolution kernels reuse each input row across the window. The filter
// is reordered into the layout oneDNN's kernel wants: once, when the step
// list is recorded, for a constant filter (inference); before each run
// otherwise (a trained filter). The bias and gelu are oneDNN's; relu runs
// after the primitive with the contract's NaN rule (as CpuGemm.h says).
//
// Numerics: f32 sums in oneDNN's order (Winograd is never chosen), within
// the tolerance of the gather and product. oneDNN skips the padding, where
// the windows' product multiplies zeros: the two differ only where a filter
// element is infinite or NaN (0 * inf is NaN), so a padded convolution with
// such a filter (checked once for a constant filter, per run otherwise) runs
// on a reference loop with the step's definition instead. Steps oneDNN does not
// compute here (f16/bf16 operands, an empty sum) run as their gather and
// product, and the reason is kept for the device report.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_RUNTIME_CPU_CPUCONV_H
#define FUSEC_RUNTIME_CPU_CPUCONV_H

#include "fusec/Runtime/Conv.h"

#include <memory>
#include <string>

namespace fusec::rt {

/// One ConvCall, bound to its operands' memory and ready to run.
class CpuConv {
public:
  virtual ~CpuConv();
  virtual void run() = 0;
};

/// Prepares `call` on `threads` threads with its operands at these
/// addresses (`bias` null without a bias epilogue), or returns null with
/// `why` set to the reason oneDNN does not compute it (without a prefix).
/// A constant filter is read (and reordered) here.
std::unique_ptr<CpuConv> prepareCpuConv(const ConvCall &call, int threads,
                                        const void *input, const void *filter,
                                        void *output, const void *bias,
                                        std::string &why);

} // namespace fusec::rt

#endif // FUSEC_RUNTIME_CPU_CPUCONV_H
