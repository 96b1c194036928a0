//===- Results.h - Writing the results of a run -----------------*- C++ -*-===//
//
// The command-line contract for results, shared by `fusec --run` and
// `fusec-run`: DIR/result0.npy, result1.npy, ... (each written atomically)
// with one summary line each.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_RESULTS_H
#define FUSEC_SUPPORT_RESULTS_H

#include "fusec/Support/Buffer.h"

#include <string>
#include <vector>

namespace fusec {

/// "f32[8x10] min 0.0023 max 0.43 mean 0.1" (NaN and infinity counts when
/// there are any; "(empty)", "all NaN").
std::string summarizeBuffer(const Buffer &buffer);

/// Creates `dir` if needed and writes `results[i]` to `dir`/result<i>.npy.
/// Appends "<path>: <summary>" per result to `lines`. On failure returns
/// false with `error` set; results written before the failure stay.
bool writeResults(const std::string &dir, const std::vector<Buffer> &results,
                  std::vector<std::string> &lines, std::string &error);

} // namespace fusec

#endif // FUSEC_SUPPORT_RESULTS_H
