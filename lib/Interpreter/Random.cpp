//===- Random.cpp - Reference random numbers ------------------------------===//

#include "fusec/Interpreter/Kernels.h"
#include "fusec/Support/Philox.h"

using namespace fusec;

void kernels::randomUniform(const Buffer &key, int64_t stream, Buffer &out) {
  const int32_t *k = key.as<int32_t>();
  float *o = out.as<float>();
  for (int64_t i = 0, n = out.numElements(); i < n; ++i)
    o[i] = philoxUniform(uint32_t(k[0]), uint32_t(k[1]), uint32_t(stream),
                         uint64_t(i));
}
