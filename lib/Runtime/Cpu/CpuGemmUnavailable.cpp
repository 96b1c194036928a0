//===- CpuGemmUnavailable.cpp - The cpu device without oneDNN -------------===//
//
// Built when CMake found no oneDNN (Debian: libdnnl-dev): every matmul of
// the cpu device runs on the reference GEMM, every convolution as its
// gather and product, and the device report says why.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Cpu/CpuConv.h"
#include "fusec/Runtime/Cpu/CpuGemm.h"

using namespace fusec::rt;

CpuGemm::~CpuGemm() = default;
CpuConv::~CpuConv() = default;

std::string fusec::rt::cpuGemmLibrary() { return ""; }

static const char *withoutOneDnn() {
  return "fusec was built without oneDNN (install libdnnl-dev, then "
         "configure the build again)";
}

std::unique_ptr<CpuGemm> fusec::rt::prepareCpuGemm(const MatmulCall &, int,
                                                   const void *, const void *,
                                                   void *, const void *,
                                                   std::string &why) {
  why = withoutOneDnn();
  return nullptr;
}

std::unique_ptr<CpuConv> fusec::rt::prepareCpuConv(const ConvCall &, int,
                                                   const void *, const void *,
                                                   void *, const void *,
                                                   std::string &why) {
  why = withoutOneDnn();
  return nullptr;
}
