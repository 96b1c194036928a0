//===- PassOptions.cpp - Options structs as MLIR pass options -------------===//

#include "fusec/Pass/PassOptions.h"

using namespace mlir;
using namespace fusec;

PassOptionsBinder::PassOptionsBinder(Pass &pass) : pass(&pass) {}
PassOptionsBinder::PassOptionsBinder(detail::PassOptions &options)
    : options(&options) {}
PassOptionsBinder::~PassOptionsBinder() = default;

template <typename T, typename... Args>
detail::PassOptions::Option<T> &PassOptionsBinder::make(std::string_view name,
                                                        Args &&...args) {
  detail::PassOptions::Option<T> *option;
  llvm::StringRef arg(name.data(), name.size());
  if (pass)
    option = new Pass::Option<T>(*pass, arg, std::forward<Args>(args)...);
  else
    option = new detail::PassOptions::Option<T>(*options, arg,
                                                std::forward<Args>(args)...);
  owned.emplace_back(option);
  return *option;
}

template <typename T, typename... Args>
detail::PassOptions::ListOption<T> &
PassOptionsBinder::makeList(std::string_view name, Args &&...args) {
  detail::PassOptions::ListOption<T> *option;
  llvm::StringRef arg(name.data(), name.size());
  if (pass)
    option = new Pass::ListOption<T>(*pass, arg, std::forward<Args>(args)...);
  else
    option = new detail::PassOptions::ListOption<T>(
        *options, arg, std::forward<Args>(args)...);
  owned.emplace_back(option);
  return *option;
}

static llvm::cl::desc describe(std::string_view help) {
  return llvm::cl::desc(llvm::StringRef(help.data(), help.size()));
}

void PassOptionsBinder::flag(std::string_view name, bool &value,
                             std::string_view help) {
  auto &o = make<bool>(name, describe(help), llvm::cl::init(value));
  loaders.push_back([&o, &value] {
    value = o;
    return std::string();
  });
}

void PassOptionsBinder::integer(std::string_view name, int64_t &value,
                                std::string_view help, int64_t minimum) {
  auto &o = make<int64_t>(name, describe(help), llvm::cl::init(value));
  loaders.push_back([&o, &value, minimum, n = std::string(name)] {
    if (std::optional<std::string> why = checkMinimum(n, o, minimum))
      return *why;
    value = o;
    return std::string();
  });
}

void PassOptionsBinder::number(std::string_view name, double &value,
                               std::string_view help) {
  auto &o = make<double>(name, describe(help), llvm::cl::init(value));
  loaders.push_back([&o, &value] {
    value = o;
    return std::string();
  });
}

void PassOptionsBinder::text(std::string_view name, std::string &value,
                             std::string_view help,
                             std::string_view valueName) {
  auto &o = make<std::string>(name, describe(help), llvm::cl::init(value));
  loaders.push_back([&o, &value] {
    value = o;
    return std::string();
  });
}

void PassOptionsBinder::list(std::string_view name,
                             std::vector<std::string> &value,
                             std::string_view help, std::string_view valueName,
                             bool commaSeparated) {
  // Pass list options are always comma-separated.
  auto &o = makeList<std::string>(name, describe(help));
  if (!value.empty())
    o = llvm::ArrayRef<std::string>(value);
  loaders.push_back([&o, &value] {
    value.assign(o.begin(), o.end());
    return std::string();
  });
}

void PassOptionsBinder::bytes(std::string_view name, uint64_t &value,
                              std::string_view help,
                              std::string_view zeroMeans) {
  auto &o = make<std::string>(name, describe(help),
                              llvm::cl::init(formatByteCount(value)));
  loaders.push_back(
      [&o, &value, zero = !zeroMeans.empty(), n = std::string(name)] {
        return assignByteCount(n, o.getValue(), zero, value).value_or("");
      });
}

void PassOptionsBinder::choice(std::string_view name, ChoiceRef value,
                               std::string_view help) {
  // A string checked on load, with the message every binder gives.
  texts.push_back(std::make_unique<std::string>(value.describe(help)));
  auto &o = make<std::string>(name, describe(*texts.back()),
                              llvm::cl::init(std::string(value.currentName())));
  loaders.push_back([&o, value, n = std::string(name)] {
    return value.assign(n, o.getValue()).value_or("");
  });
}

bool PassOptionsBinder::load(std::string &error) const {
  for (const auto &loader : loaders) {
    std::string why = loader();
    if (!why.empty()) {
      error = why;
      return false;
    }
  }
  return true;
}
