//===- ExecutableValidation.cpp - What a valid .fsx executable is --------===//
//
// The checks parseExecutable makes after the syntax
// (docs/executable-format.md, Validation): every index in range, every size
// consistent with its dtype and shape, every launch inside its buffers and
// within the limits of generated kernels, every matmul step one cuBLASLt
// computes, and a valid memory plan. The artifact reader is the runtime's
// security boundary: an artifact may come from anywhere.
//
//===----------------------------------------------------------------------===//

#include "fusec/Runtime/Conv.h"
#include "fusec/Runtime/Executable.h"
#include "fusec/Runtime/Matmul.h"
#include "fusec/Runtime/MemoryPlan.h"
#include "fusec/Support/Buffer.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using namespace fusec;
using namespace fusec::rt;

namespace {

constexpr uint32_t kMaxBlockSize = 1024;

std::string quoted(std::string_view s) { return quoteName(s); }

std::string formatList(const std::vector<int64_t> &v) { return formatDims(v); }

class Validator {
public:
  Validator(const Executable &exe, std::string &error)
      : exe(exe), error(error) {}

  bool run() {
    if (exe.entry.empty())
      return fail("the entry function name is empty");
    if (exe.arch.empty())
      return fail("the target architecture is empty");
    if (!checkShapes() || !checkBuffers() || !checkInputs() ||
        !checkKernels() || !checkCubins() || !checkSteps() || !checkOutputs())
      return false;
    std::string why;
    if (!checkMemoryPlan(exe, why))
      return fail(why);
    return true;
  }

private:
  const Executable &exe;
  std::string &error;
  std::vector<int64_t> numElements, numBytes; // Per buffer.

  bool fail(const std::string &what) {
    error = "invalid .fsx file: " + what;
    return false;
  }

  std::string bufferName(size_t i) const {
    return "buffer " + std::to_string(i) + " (" + quoted(exe.buffers[i].name) +
           ")";
  }

  std::string describe(size_t i) const {
    const BufferDesc &b = exe.buffers[i];
    return formatList(b.shape) + " " + std::string(dtypeName(b.dtype));
  }

  bool isBuffer(int64_t i) const {
    return i >= 0 && uint64_t(i) < exe.buffers.size();
  }

  std::string numBuffers() const {
    return "(there are " + std::to_string(exe.buffers.size()) + " buffers)";
  }

  /// Element counts and byte sizes, which the other checks use.
  bool checkShapes() {
    for (size_t i = 0; i < exe.buffers.size(); ++i) {
      const BufferDesc &b = exe.buffers[i];
      for (int64_t d : b.shape)
        if (d < 0)
          return fail(bufferName(i) + ": negative dimension " +
                      std::to_string(d) + " in shape " + formatList(b.shape));
      std::optional<int64_t> count = checkedNumElements(b.shape);
      if (!count)
        return fail(bufferName(i) + ": the number of elements of shape " +
                    formatList(b.shape) + " overflows int64");
      int64_t bytes;
      if (__builtin_mul_overflow(*count, int64_t(dtypeSize(b.dtype)), &bytes))
        return fail(bufferName(i) + ": the size in bytes of " + describe(i) +
                    " overflows int64");
      numElements.push_back(*count);
      numBytes.push_back(bytes);
    }
    return true;
  }

  bool checkBuffers() {
    std::vector<int64_t> inputOf(exe.inputs.size(), -1);
    for (size_t i = 0; i < exe.buffers.size(); ++i) {
      const BufferDesc &b = exe.buffers[i];
      std::string what = bufferName(i) + ": ";
      switch (b.kind) {
      case BufferKind::Input:
        if (b.index < 0 || uint64_t(b.index) >= exe.inputs.size())
          return fail(what + "input position " + std::to_string(b.index) +
                      " is out of range (the entry has " +
                      std::to_string(exe.inputs.size()) + " inputs)");
        if (inputOf[b.index] >= 0)
          return fail(what + "input position " + std::to_string(b.index) +
                      " is also that of buffer " +
                      std::to_string(inputOf[b.index]));
        inputOf[b.index] = int64_t(i);
        break;
      case BufferKind::Constant: {
        if (b.index < 0 || uint64_t(b.index) >= exe.constants.size())
          return fail(what + "constant " + std::to_string(b.index) +
                      " is out of range (there are " +
                      std::to_string(exe.constants.size()) + " constants)");
        size_t size = exe.constants[b.index].size();
        if (uint64_t(size) != uint64_t(numBytes[i]))
          return fail(what + "constant " + std::to_string(b.index) + " has " +
                      std::to_string(size) + " bytes, expected " +
                      std::to_string(numBytes[i]) + " for " + describe(i));
        break;
      }
      case BufferKind::Temp:
        break; // Its offset is the memory plan's (checked last).
      case BufferKind::Alias: {
        if (!isBuffer(b.index))
          return fail(what + "aliases buffer " + std::to_string(b.index) +
                      ", which does not exist " + numBuffers());
        size_t t = size_t(b.index);
        if (t == i)
          return fail(what + "aliases itself");
        if (exe.buffers[t].kind == BufferKind::Alias)
          return fail(what + "aliases " + bufferName(t) +
                      ", which is an alias itself");
        if (exe.buffers[t].dtype != b.dtype || numElements[t] != numElements[i])
          return fail(what + describe(i) + " cannot alias " + bufferName(t) +
                      " of " + describe(t) +
                      " (an alias keeps the dtype and the number of "
                      "elements)");
        break;
      }
      }
    }
    for (size_t k = 0; k < inputOf.size(); ++k)
      if (inputOf[k] < 0)
        return fail("input position " + std::to_string(k) +
                    " is not that of any input buffer");
    return true;
  }

  bool checkInputs() {
    for (size_t k = 0; k < exe.inputs.size(); ++k) {
      int64_t b = exe.inputs[k];
      std::string what =
          "inputs[" + std::to_string(k) + "] is buffer " + std::to_string(b);
      if (!isBuffer(b))
        return fail(what + ", which does not exist " + numBuffers());
      const BufferDesc &d = exe.buffers[b];
      if (d.kind != BufferKind::Input || d.index != int64_t(k))
        return fail(
            what + ", but " + bufferName(b) +
            (d.kind == BufferKind::Input
                 ? " is input " + std::to_string(d.index)
                 : std::string(" is a ") + bufferKindName(d.kind) + " buffer") +
            ", not input " + std::to_string(k));
    }
    return true;
  }

  bool checkOutputs() {
    for (size_t k = 0; k < exe.outputs.size(); ++k)
      if (!isBuffer(exe.outputs[k]))
        return fail("outputs[" + std::to_string(k) + "] is buffer " +
                    std::to_string(exe.outputs[k]) + ", which does not exist " +
                    numBuffers());
    return true;
  }

  /// [A-Za-z_][A-Za-z0-9_]*: a kernel's name is looked up as a symbol
  /// and written into file names (fusec-run --dump-ptx), so nothing else
  /// is accepted (no "../", no NUL).
  static bool isIdentifier(const std::string &name) {
    if (name.empty() || (name[0] >= '0' && name[0] <= '9'))
      return false;
    for (char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            (c >= '0' && c <= '9') || c == '_'))
        return false;
    return true;
  }

  /// None, or one per PTX text, each a 64-bit little-endian ELF image for
  /// the NVIDIA CUDA machine (EM_CUDA, 190). What is inside is the
  /// driver's to check, as for PTX: it refuses an image it cannot load.
  bool checkCubins() {
    if (!exe.cubin.empty() && exe.cubin.size() != exe.ptx.size())
      return fail(std::to_string(exe.cubin.size()) + " CUBINs for " +
                  std::to_string(exe.ptx.size()) +
                  " PTX texts (expected none or one per PTX text)");
    for (size_t i = 0; i < exe.cubin.size(); ++i) {
      const std::string &c = exe.cubin[i];
      auto byte = [&](size_t at) { return (unsigned char)c[at]; };
      if (c.size() < 64 ||
          c.compare(0, 4,
                    "\x7f"
                    "ELF") != 0 ||
          byte(4) != 2 || byte(5) != 1 || byte(18) != 190 || byte(19) != 0)
        return fail("cubin " + std::to_string(i) +
                    " is not a 64-bit little-endian ELF image for CUDA");
    }
    return true;
  }

  bool checkKernels() {
    std::set<std::string> names;
    for (size_t i = 0; i < exe.kernels.size(); ++i) {
      const KernelDesc &k = exe.kernels[i];
      std::string what =
          "kernel " + std::to_string(i) + " (" + quoted(k.name) + "): ";
      if (!isIdentifier(k.name))
        return fail(what + "the symbol name is not a C identifier");
      if (!names.insert(k.name).second)
        return fail(what + "another kernel has the same symbol name");
      if (k.ptxIndex < 0 || uint64_t(k.ptxIndex) >= exe.ptx.size())
        return fail(what + "PTX text " + std::to_string(k.ptxIndex) +
                    " is out of range (there are " +
                    std::to_string(exe.ptx.size()) + " PTX texts)");
      if (k.work < 0)
        return fail(what + "negative work " + std::to_string(k.work));
      if (k.rowLength < 0)
        return fail(what + "negative row length " +
                    std::to_string(k.rowLength));
      if (k.vectorWidth < 1)
        return fail(what + "vector width " + std::to_string(k.vectorWidth) +
                    " is not at least 1");
      if (k.numInputs < 0 || k.numOutputs < 1)
        return fail(what + std::to_string(k.numInputs) + " inputs and " +
                    std::to_string(k.numOutputs) +
                    " outputs (a kernel writes at least one output)");
      if (k.numInputs > int64_t(k.params.size()) ||
          int64_t(k.params.size()) - k.numInputs != k.numOutputs)
        return fail(what + std::to_string(k.params.size()) +
                    " parameters, but " + std::to_string(k.numInputs) +
                    " inputs and " + std::to_string(k.numOutputs) + " outputs");
      for (size_t p = 0; p < k.params.size(); ++p)
        if (k.params[p].elements < 0)
          return fail(what + "parameter " + std::to_string(p) +
                      " has a negative element count " +
                      std::to_string(k.params[p].elements));
      for (size_t p = 0; p < k.inPlace.size(); ++p) {
        auto [in, out] = k.inPlace[p];
        if (in < 0 || in >= k.numInputs || out < 0 || out >= k.numOutputs)
          return fail(what + "in-place pair (" + std::to_string(in) + ", " +
                      std::to_string(out) + ") names no input and output");
        // One encoding: pairs in increasing order, each once.
        if (p && k.inPlace[p - 1] >= k.inPlace[p])
          return fail(what + "in-place pairs are not in increasing order");
      }
    }
    return true;
  }

  /// A kernel launch (a step's own or a convolution's gather).
  bool checkLaunch(const std::string &what, const LaunchStep &l) {
    if (l.kernel < 0 || uint64_t(l.kernel) >= exe.kernels.size())
      return fail(what + "kernel " + std::to_string(l.kernel) +
                  " is out of range (there are " +
                  std::to_string(exe.kernels.size()) + " kernels)");
    if (l.gridSize < 1)
      return fail(what + "grid size 0 is not at least 1");
    if (l.blockSize < 1 || l.blockSize > kMaxBlockSize)
      return fail(what + "block size " + std::to_string(l.blockSize) +
                  " is not between 1 and " + std::to_string(kMaxBlockSize));
    for (size_t a = 0; a < l.args.size(); ++a)
      if (!isBuffer(l.args[a]))
        return fail(what + "argument " + std::to_string(a) + " is buffer " +
                    std::to_string(l.args[a]) + ", which does not exist " +
                    numBuffers());
    const KernelDesc &k = exe.kernels[size_t(l.kernel)];
    if (int64_t(l.args.size()) != k.numInputs + k.numOutputs)
      return fail(what + std::to_string(l.args.size()) +
                  " arguments, but the kernel takes " +
                  std::to_string(k.numInputs) + " inputs and " +
                  std::to_string(k.numOutputs) + " outputs");
    // The kernel reads and writes at most its parameters' elements: each
    // argument must be a buffer of that dtype holding as many.
    for (size_t a = 0; a < l.args.size(); ++a) {
      const KernelParam &p = k.params[a];
      auto b = size_t(l.args[a]);
      if (exe.buffers[b].dtype != p.dtype || numElements[b] < p.elements)
        return fail(what + "argument " + std::to_string(a) + " is " +
                    bufferName(b) + " of " + describe(b) + ", but kernel " +
                    std::to_string(l.kernel) + " (" + quoted(k.name) +
                    ") accesses " + std::to_string(p.elements) + " " +
                    std::string(dtypeName(p.dtype)) + " elements there");
    }
    // A row reduction combines whole warps' partial results.
    if (k.kind == FusionKind::RowReduction && l.blockSize % 32)
      return fail(what + "block size " + std::to_string(l.blockSize) +
                  " of a row reduction is not a multiple of 32");
    if (int64_t(l.gridSize) * int64_t(l.blockSize) > kMaxLaunchThreads)
      return fail(what + "grid " + std::to_string(l.gridSize) + " x block " +
                  std::to_string(l.blockSize) +
                  " is more than 2^30 threads, which a generated kernel's "
                  "32-bit index does not support");
    for (size_t a = size_t(k.numInputs); a < l.args.size(); ++a)
      if (exe.buffers[size_t(l.args[a])].kind != BufferKind::Temp)
        return fail(what + "output argument " + std::to_string(a) + " is " +
                    bufferName(size_t(l.args[a])) + ", not a temp buffer");
    return true;
  }

  bool checkMatmul(const std::string &what, const MatmulStep &m) {
    std::string why;
    if (!checkMatmulStep(exe, m, why))
      return fail(what + why);
    if (exe.buffers[size_t(m.c)].kind != BufferKind::Temp)
      return fail(what + "matmul result c is " + bufferName(size_t(m.c)) +
                  ", not a temp buffer");
    return true;
  }

  /// How many steps access each root buffer's bytes (a convolution's
  /// windows must be its own), counted once all indices are checked.
  std::vector<int64_t> countAccesses() const {
    std::vector<int64_t> count(exe.buffers.size(), 0);
    std::vector<int64_t> roots;
    for (const Step &s : exe.steps) {
      roots.clear();
      auto add = [&](int64_t b) {
        if (b >= 0)
          roots.push_back(rootBuffer(exe, b));
      };
      auto addLaunch = [&](const LaunchStep &l) {
        for (int64_t a : l.args)
          add(a);
      };
      auto addMatmul = [&](const MatmulStep &m) {
        add(m.a);
        add(m.b);
        add(m.c);
        add(m.bias);
      };
      if (s.kind == Step::Kind::Launch)
        addLaunch(s.launch);
      else if (s.kind == Step::Kind::Matmul)
        addMatmul(s.matmul);
      else {
        add(s.conv.input);
        addLaunch(s.conv.gather);
        addMatmul(s.conv.product);
      }
      std::sort(roots.begin(), roots.end());
      roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
      for (int64_t r : roots)
        ++count[size_t(r)];
    }
    return count;
  }

  bool checkSteps() {
    bool convolutions = false;
    for (size_t i = 0; i < exe.steps.size(); ++i) {
      const Step &s = exe.steps[i];
      std::string what = "step " + std::to_string(i) + ": ";
      switch (s.kind) {
      case Step::Kind::Launch:
        if (!checkLaunch(what, s.launch))
          return false;
        break;
      case Step::Kind::Matmul:
        if (!checkMatmul(what, s.matmul))
          return false;
        break;
      case Step::Kind::Conv:
        if (!checkLaunch(what + "gather: ", s.conv.gather) ||
            !checkMatmul(what + "product: ", s.conv.product))
          return false;
        if (!isBuffer(s.conv.input))
          return fail(what + "convolution input " +
                      std::to_string(s.conv.input) + " does not exist " +
                      numBuffers());
        convolutions = true;
        break;
      }
    }
    if (!convolutions)
      return true;
    // Every index is in range now.
    std::vector<int64_t> accesses = countAccesses();
    for (size_t i = 0; i < exe.steps.size(); ++i) {
      const Step &s = exe.steps[i];
      if (s.kind != Step::Kind::Conv)
        continue;
      std::string why;
      int64_t windows = rootBuffer(exe, s.conv.product.a);
      if (!checkConvStep(exe, s.conv, accesses[size_t(windows)], why))
        return fail("step " + std::to_string(i) + ": " + why);
    }
    return true;
  }
};

} // namespace

bool fusec::rt::validateExecutable(const Executable &exe, std::string &error) {
  return Validator(exe, error).run();
}
