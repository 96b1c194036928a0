//===- TargetInfo.h - What code generation knows about a GPU ----*- C++ -*-===//
//
// Every per-architecture choice of code generation lives here (after
// Triton's TargetInfoBase): which architectures are supported, how many
// multiprocessors to size grids for, block sizes.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_CODEGEN_TARGETINFO_H
#define FUSEC_CODEGEN_TARGETINFO_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fusec {

struct TargetInfo {
  /// "sm_80", "sm_90", "sm_100".
  std::string arch;
  /// Multiprocessors of the reference part of the architecture (A100,
  /// H100/H200, B200). Grids are sized for it; kernels use grid-stride
  /// loops, so a runtime may rescale the grid for the actual device.
  int smCount = 0;
  /// Resident blocks per multiprocessor worth launching for memory-bound
  /// kernels.
  int blocksPerSM = 4;
  /// Threads per block for elementwise kernels.
  int elementwiseBlock = 256;
  /// Largest block for row reductions (one block per row).
  int reductionBlock = 256;
  /// The workspace cuBLASLt gets for matmul steps (NVIDIA's advice: 32 MiB
  /// on Hopper and later, 4 MiB before); a multiple of 256 bytes.
  int64_t matmulWorkspaceBytes = 4 << 20;

  /// The target for `arch`, or nullopt if fusec does not support it.
  static std::optional<TargetInfo> get(std::string_view arch);

  /// Supported architectures, for messages: "sm_80, sm_90, sm_100".
  static const char *supportedList();
  /// The supported architectures, in that order.
  static const std::vector<std::string_view> &supported();

  /// Blocks to launch for `work` independent items of `perBlock` each.
  uint32_t gridFor(int64_t work, int64_t perBlock) const;
};

} // namespace fusec

#endif // FUSEC_CODEGEN_TARGETINFO_H
