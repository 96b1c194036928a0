//===- fsx_fuzzer.cpp - libFuzzer target: the .fsx reader and executor ---===//
//
// Any bytes: parseExecutable refuses them with a reason or returns a plan
// that the host device loads and runs inside its memory limit, every
// launch of a kernel whose stand-in reads each input element and writes
// each output element its recorded signature promises (the reader is the
// runtime's security boundary: an artifact may come from anywhere).
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Executor.h"
#include "fusec/Runtime/Host/HostDevice.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/Checked.h"

#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

using namespace fusec;

namespace {

/// The signatures of the kernels being run, by stand-in slot.
std::vector<rt::KernelDesc> signatures;

/// Kernel `Slot`'s stand-in: touches exactly the bytes of its signature.
template <size_t Slot> void standIn(unsigned, unsigned, void **args) {
  const rt::KernelDesc &k = signatures[Slot];
  volatile uint8_t sink = 0;
  for (size_t p = 0; p < k.params.size(); ++p) {
    size_t bytes = size_t(k.params[p].elements) * dtypeSize(k.params[p].dtype);
    auto *data = static_cast<uint8_t *>(args[p]);
    if (int64_t(p) < k.numInputs)
      for (size_t i = 0; i < bytes; ++i)
        sink = sink + data[i];
    else
      std::memset(data, 0x5a, bytes);
  }
}

constexpr size_t kSlots = 32;
template <size_t... I>
constexpr std::array<rt::HostDevice::KernelEntry, kSlots>
standIns(std::index_sequence<I...>) {
  return {&standIn<I>...};
}
constexpr auto kStandIns = standIns(std::make_index_sequence<kSlots>());

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<rt::Executable> exe = rt::parseExecutable(bytes, error);
  if (!exe) {
    if (error.empty())
      __builtin_trap(); // A refusal always says why.
    return 0;
  }
  if (exe->kernels.size() > kSlots)
    return 0;
  signatures = exe->kernels;
  auto device = rt::HostDevice::create(
      [&](const std::string &name) -> rt::HostDevice::KernelEntry {
        for (size_t k = 0; k < signatures.size(); ++k)
          if (signatures[k].name == name)
            return kStandIns[k];
        return nullptr;
      },
      "fuzz");
  rt::ExecutionOptions options;
  options.memoryLimit = 64 << 20;
  auto loaded = rt::LoadedExecutable::load(*exe, *device, options, error);
  if (!loaded)
    return 0;
  // Zero inputs (Buffer::allocate zeroes) of the entry's shapes.
  std::vector<Buffer> inputs;
  for (int64_t b : exe->inputs) {
    const rt::BufferDesc &desc = exe->buffers[size_t(b)];
    Buffer in = Buffer::allocate(desc.dtype, desc.shape, &error);
    if (!in)
      return 0;
    inputs.push_back(std::move(in));
  }
  loaded->run(inputs, error);
  return 0;
}
