//===- CpuGemmUnavailable.cpp - The cpu device without oneDNN -------------===//
//
// Built when CMake found no oneDNN (Debian: libdnnl-dev): every matmul of
// the cpu device runs on the reference GEMM, and the device report says
// why.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cpu/CpuGemm.h"

using namespace fusec::rt;

CpuGemm::~CpuGemm() = default;

std::string fusec::rt::cpuGemmLibrary() { return ""; }

std::unique_ptr<CpuGemm> fusec::rt::prepareCpuGemm(const MatmulCall &, int,
                                                   const void *, const void *,
                                                   void *, const void *,
                                                   std::string &why) {
  why = "fusec was built without oneDNN (install libdnnl-dev, then configure "
        "the build again)";
  return nullptr;
}
