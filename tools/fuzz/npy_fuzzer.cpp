//===- npy_fuzzer.cpp - libFuzzer target: the .npy reader -----------------===//
//
// Any bytes: parseNpy returns a buffer or an error, never reads outside the
// input, never allocates more than the header's (checked) size allows.
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/Npy.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  fusec::Buffer b = fusec::parseNpy(bytes, error);
  if (b) {
    // A parsed buffer round-trips: its bytes are what the input held.
    std::string again = fusec::serializeNpy(b);
    fusec::Buffer c = fusec::parseNpy(again, error);
    if (!c || c.sizeInBytes() != b.sizeInBytes() ||
        (b.sizeInBytes() &&
         std::memcmp(b.data(), c.data(), size_t(b.sizeInBytes())) != 0))
      __builtin_trap();
  } else if (error.empty()) {
    __builtin_trap(); // A refusal always says why.
  }
  return 0;
}
