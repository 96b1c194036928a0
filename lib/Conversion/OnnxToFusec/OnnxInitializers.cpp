//===- OnnxInitializers.cpp - Which initializers are trained --------------===//
//
// planInitializerRoles: --trainable and --frozen (glob patterns on the
// initializers' names) decide the parameters; batch normalizations decide
// which statistics are state. Decided once, before any node is converted,
// so that the training function and its evaluation twin get the same
// arguments.
//
//===----------------------------------------------------------------------===//

#include "OnnxImporter.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/GlobPattern.h"

using namespace mlir;
using namespace fusec;
using namespace fusec::onnx_import;

namespace {

/// The names of `names` for a message: the first few and how many in all.
std::string someNames(ArrayRef<std::string> names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 8; ++i)
    s += (i ? ", " : "") + names[i];
  if (names.size() > 8)
    s += ", ... (" + std::to_string(names.size()) + " in all)";
  return s.empty() ? "none" : s;
}

struct Patterns {
  std::vector<std::pair<std::string, llvm::GlobPattern>> globs;
  bool all = false;

  bool matches(StringRef name) const {
    if (all)
      return true;
    return llvm::any_of(globs,
                        [&](const auto &g) { return g.second.match(name); });
  }
};

LogicalResult compile(StringRef flag, ArrayRef<std::string> specs,
                      Patterns &out, function_ref<void(const Twine &)> error) {
  for (const std::string &spec : specs) {
    if (spec == "all") {
      out.all = true;
      continue;
    }
    if (spec == "none" || spec.empty())
      continue;
    llvm::Expected<llvm::GlobPattern> glob = llvm::GlobPattern::create(spec);
    if (!glob) {
      error("--" + flag + "=" + spec + ": not a valid pattern (" +
            llvm::toString(glob.takeError()) + ")");
      return failure();
    }
    out.globs.emplace_back(spec, std::move(*glob));
  }
  return success();
}

} // namespace

LogicalResult fusec::onnx_import::planInitializerRoles(
    const onnx::GraphProto &graph, const OnnxImportOptions &options,
    ArrayRef<bool> isFloat, std::vector<InitializerRole> &roles,
    function_ref<void(const Twine &)> error) {
  int count = graph.initializer_size();
  roles.assign(size_t(count), InitializerRole());
  Patterns trainable, frozen;
  if (failed(compile("trainable", options.trainable, trainable, error)) ||
      failed(compile("frozen", options.frozen, frozen, error)))
    return failure();
  if (!trainable.all && trainable.globs.empty())
    return success();

  std::vector<std::string> floats, all;
  for (int i = 0; i < count; ++i) {
    all.push_back(graph.initializer(i).name());
    if (isFloat[size_t(i)])
      floats.push_back(graph.initializer(i).name());
  }
  // Every pattern names something: a typo must not train (or freeze)
  // nothing in silence.
  bool ok = true;
  auto check = [&](StringRef flag, const Patterns &p) {
    for (const auto &[spec, glob] : p.globs) {
      auto matchesAny = [&, &glob = glob](ArrayRef<std::string> names) {
        return llvm::any_of(
            names, [&](const std::string &n) { return glob.match(n); });
      };
      bool anything = matchesAny(all), anyFloat = matchesAny(floats);
      if (anyFloat || (anything && flag == "frozen"))
        continue;
      ok = false;
      error("--" + flag + "=" + spec + ": " +
            (anything ? "matches only integer initializers, which are not "
                        "trained"
                      : "no initializer of the model matches") +
            " (its float initializers: " + someNames(floats) + ")");
    }
  };
  check("trainable", trainable);
  check("frozen", frozen);
  if (!ok)
    return failure();

  llvm::StringMap<int> index;
  for (int i = 0; i < count; ++i)
    index[graph.initializer(i).name()] = i;
  for (int i = 0; i < count; ++i) {
    StringRef name = graph.initializer(i).name();
    if (isFloat[size_t(i)] && trainable.matches(name) && !frozen.matches(name))
      roles[size_t(i)].kind = InitializerRole::Parameter;
  }
  // Batch-normalization statistics are never trained by the gradient: the
  // running statistics of a normalization that trains are state, those of
  // a frozen one constants (Keras's rule: a frozen BatchNormalization runs
  // in inference mode).
  auto roleOf = [&](const onnx::NodeProto &node, int input) {
    if (input >= node.input_size())
      return (InitializerRole *)nullptr;
    auto it = index.find(node.input(input));
    return it == index.end() ? nullptr : &roles[size_t(it->second)];
  };
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "BatchNormalization" ||
        !(node.domain().empty() || node.domain() == "ai.onnx"))
      continue;
    bool trains = false;
    for (int input : {1, 2})
      if (InitializerRole *r = roleOf(node, input))
        trains |= r->kind == InitializerRole::Parameter;
    for (auto [input, state] :
         {std::pair<int, const char *>{3, "batch_norm.running_mean"},
          {4, "batch_norm.running_var"}})
      if (InitializerRole *r = roleOf(node, input)) {
        // A statistic shared with a normalization that trains stays state.
        if (r->kind == InitializerRole::State)
          continue;
        r->kind = trains ? InitializerRole::State : InitializerRole::Constant;
        r->state = trains ? state : "";
      }
  }
  bool any = llvm::any_of(roles, [](const InitializerRole &r) {
    return r.kind == InitializerRole::Parameter;
  });
  if (!any) {
    error("nothing to train: " +
          std::string(floats.empty()
                          ? "the model has no float initializer"
                          : "--frozen (or batch-normalization statistics) "
                            "covers every initializer --trainable matches") +
          " (its float initializers: " + someNames(floats) + ")");
    return failure();
  }
  return success();
}
