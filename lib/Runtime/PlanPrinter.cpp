//===- PlanPrinter.cpp - An executable's plan, for people -----------------===//

#include "fusec/Runtime/PlanPrinter.h"
#include "fusec/Runtime/Conv.h"
#include "fusec/Runtime/Matmul.h"
#include "fusec/Runtime/MemoryPlan.h"
#include "fusec/Support/Buffer.h"

#include <cstdio>

using namespace fusec;
using namespace fusec::rt;

/// A name as it is when it is plain printable ASCII, else quoted with the
/// format's escapes, so that every entry stays on one line.
static std::string displayName(const std::string &name) {
  bool plain = !name.empty();
  for (char c : name)
    plain &= c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  return plain ? name : quoteName(name);
}

static std::string typeOf(const BufferDesc &b) {
  return std::string(dtypeName(b.dtype)) + "[" +
         formatShape(Shape(b.shape.begin(), b.shape.end())) + "]";
}

std::string fusec::rt::formatMemoryFigures(const Executable &exe) {
  const MemoryFigures &m = exe.memory;
  MemoryAnalysis analysis = analyzeMemory(exe);
  int64_t constants = 0;
  for (const std::string &c : exe.constants)
    constants += int64_t(c.size());
  char ratio[32] = "-";
  if (m.lowerBoundBytes > 0)
    std::snprintf(ratio, sizeof ratio, "%.3f",
                  double(m.arenaBytes) / double(m.lowerBoundBytes));
  int64_t one = analysis.oneBufferPerTempBytes;
  std::string peak = m.lowerBoundBytes == 0 ? "no temporary takes arena space"
                     : uint64_t(m.peakStep) == exe.steps.size()
                         ? "peak after the last step"
                         : "peak at " + describeStep(exe, m.peakStep);
  return "arena " + std::to_string(m.arenaBytes) + " bytes, " + ratio +
         "x the lower bound " + std::to_string(m.lowerBoundBytes) +
         " (one buffer per temporary: " + std::to_string(one) + ", " +
         std::to_string(one - m.arenaBytes) + " saved); constants " +
         std::to_string(constants) + ", workspace " +
         std::to_string(m.workspaceBytes) + "; " + peak;
}

std::string fusec::rt::formatPlan(const Executable &exe) {
  std::string os = "executable '" + displayName(exe.entry) + "' for " +
                   displayName(exe.arch) + ", format v" +
                   std::to_string(exe.version) + "\n";
  os += "memory: " + formatMemoryFigures(exe) + "\n";
  os += "buffers:\n";
  for (size_t i = 0; i < exe.buffers.size(); ++i) {
    const BufferDesc &b = exe.buffers[i];
    os += "  #" + std::to_string(i) + " " + displayName(b.name) + ": " +
          bufferKindName(b.kind);
    if (b.kind == BufferKind::Input)
      os += " " + std::to_string(b.index);
    if (b.kind == BufferKind::Alias)
      os += " of #" + std::to_string(b.index);
    os += " " + typeOf(b);
    if (b.kind == BufferKind::Temp)
      os += " at " + std::to_string(b.offset);
    os += "\n";
  }
  os += "kernels:\n";
  for (size_t i = 0; i < exe.kernels.size(); ++i) {
    const KernelDesc &k = exe.kernels[i];
    os += "  k" + std::to_string(i) + " " + displayName(k.name) + ": " +
          std::string(fusionKindName(k.kind)) + ", work " +
          std::to_string(k.work);
    if (k.kind != FusionKind::Loop)
      os += " x " + std::to_string(k.rowLength);
    else
      os += ", vector " + std::to_string(k.vectorWidth);
    for (auto [in, out] : k.inPlace)
      os +=
          ", in" + std::to_string(in) + " may become out" + std::to_string(out);
    os += ", ptx " + std::to_string(exe.ptx[size_t(k.ptxIndex)].size()) +
          " bytes";
    if (!exe.cubin.empty())
      os += ", cubin " + std::to_string(exe.cubin[size_t(k.ptxIndex)].size()) +
            " bytes";
    os += "\n";
  }
  os += "steps:\n";
  auto matmul = [&](const MatmulStep &m, const std::string &indent) {
    os += indent + "matmul #" + std::to_string(m.a) +
          (m.transposeA ? "^T" : "") + " x #" + std::to_string(m.b) +
          (m.transposeB ? "^T" : "") + " -> #" + std::to_string(m.c);
    if (m.epilogue != MatmulEpilogue::None)
      os += std::string(", epilogue ") + matmulEpilogueName(m.epilogue);
    if (m.bias >= 0)
      os += ", bias #" + std::to_string(m.bias);
    os += "\n";
    for (const MatmulCall &call : describeMatmul(exe, m))
      os += indent + "  " + describeCall(call) + "\n";
  };
  auto launch = [&](const LaunchStep &l, const std::string &indent) {
    os += indent + "launch k" + std::to_string(l.kernel) + " <<<" +
          std::to_string(l.gridSize) + ", " + std::to_string(l.blockSize) +
          ">>> (";
    for (size_t a = 0; a < l.args.size(); ++a)
      os += (a ? ", #" : "#") + std::to_string(l.args[a]);
    os += ")\n";
  };
  for (const Step &step : exe.steps) {
    switch (step.kind) {
    case Step::Kind::Matmul:
      matmul(step.matmul, "  ");
      break;
    case Step::Kind::Launch:
      launch(step.launch, "  ");
      break;
    case Step::Kind::Conv: {
      const ConvStep &c = step.conv;
      const std::array<int64_t, 4> &p = c.window.padding;
      os += "  conv " + c.window.describe() + " of #" +
            std::to_string(c.input) + ", padding " +
            formatDims({p[0], p[1], p[2], p[3]}) + ", or:\n";
      launch(c.gather, "    ");
      matmul(c.product, "    ");
      break;
    }
    }
  }
  os += "outputs:";
  for (int64_t o : exe.outputs)
    os += " #" + std::to_string(o);
  os += "\n";
  return os;
}
