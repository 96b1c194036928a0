//===- Results.cpp - Writing the results of a run -------------------------===//

#include "fusec/Support/Results.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Npy.h"

#include <cmath>
#include <cstdio>

using namespace fusec;

std::string fusec::summarizeBuffer(const Buffer &b) {
  std::string s =
      std::string(dtypeName(b.dtype())) + "[" + formatShape(b.shape()) + "]";
  int64_t n = b.numElements();
  if (n == 0)
    return s + " (empty)";
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  int64_t finite = 0, nans = 0, infs = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = b.getAsDouble(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    if (std::isinf(v))
      ++infs;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    if (!std::isinf(v)) {
      sum += v;
      ++finite;
    }
  }
  if (nans == n)
    return s + " all NaN";
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, " min %g max %g", lo, hi);
  s += buffer;
  if (finite) {
    std::snprintf(buffer, sizeof buffer, " mean %g", sum / double(finite));
    s += buffer;
  }
  if (nans)
    s += " nan " + std::to_string(nans);
  if (infs)
    s += " inf " + std::to_string(infs);
  return s;
}

bool fusec::writeResults(const std::string &dir,
                         const std::vector<Buffer> &results,
                         std::vector<std::string> &lines, std::string &error) {
  if (!createDirectories(dir, error))
    return false;
  // All or none: a failure (a full disk) leaves no result of this run.
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::string> summaries;
  for (size_t i = 0; i < results.size(); ++i) {
    std::string path = dir;
    if (!path.empty() && path.back() != '/')
      path += '/';
    path += "result" + std::to_string(i) + ".npy";
    files.emplace_back(path, serializeNpy(results[i]));
    summaries.push_back(path + ": " + summarizeBuffer(results[i]));
  }
  if (!writeFilesAtomically(files, error))
    return false;
  lines.insert(lines.end(), summaries.begin(), summaries.end());
  return true;
}
