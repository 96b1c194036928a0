//===- TargetInfo.cpp - What code generation knows about a GPU ------------===//

#include "fusec/Codegen/TargetInfo.h"

#include <algorithm>

using namespace fusec;

std::optional<TargetInfo> TargetInfo::get(std::string_view arch) {
  TargetInfo t;
  t.arch = std::string(arch);
  if (arch == "sm_80")
    t.smCount = 108; // A100
  else if (arch == "sm_90")
    t.smCount = 132; // H100 SXM, H200
  else if (arch == "sm_100")
    t.smCount = 148; // B200
  else
    return std::nullopt;
  if (arch != "sm_80")
    t.matmulWorkspaceBytes = 32 << 20;
  return t;
}

const char *TargetInfo::supportedList() { return "sm_80, sm_90, sm_100"; }

const std::vector<std::string_view> &TargetInfo::supported() {
  static const std::vector<std::string_view> archs = {"sm_80", "sm_90",
                                                      "sm_100"};
  return archs;
}

uint32_t TargetInfo::gridFor(int64_t work, int64_t perBlock) const {
  int64_t blocks = perBlock > 0 ? (work + perBlock - 1) / perBlock : 1;
  int64_t cap = int64_t(smCount) * blocksPerSM;
  return uint32_t(std::max<int64_t>(1, std::min(blocks, cap)));
}
