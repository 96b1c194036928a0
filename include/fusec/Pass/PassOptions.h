//===- PassOptions.h - Options structs as MLIR pass options -----*- C++ -*-===//
//
// Binds the fields of fusec's options structs (fusec/Support/Options.h) to
// the options of an MLIR pass or pass pipeline, so that a pass's textual
// options (`--fusec-fuse-elementwise="fusion-max-ops=8"`) are the same
// declaration, spelling and default as the command line's. A pass keeps
// its options struct and a binder; the binder copies parsed values back
// into the struct with load().
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_PASS_PASSOPTIONS_H
#define FUSEC_PASS_PASSOPTIONS_H

#include "fusec/Support/Options.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusec {

class PassOptionsBinder final : public OptionBinder {
public:
  /// The options of `pass` (bind in its constructors, in the same order in
  /// each: Pass::clone copies option values by position).
  explicit PassOptionsBinder(mlir::Pass &pass);
  /// The options of a pipeline (PassPipelineOptions).
  explicit PassOptionsBinder(mlir::detail::PassOptions &options);
  ~PassOptionsBinder() override;

  void flag(std::string_view name, bool &value, std::string_view help) override;
  void integer(std::string_view name, int64_t &value, std::string_view help,
               int64_t minimum = INT64_MIN) override;
  void number(std::string_view name, double &value,
              std::string_view help) override;
  void text(std::string_view name, std::string &value, std::string_view help,
            std::string_view valueName) override;
  void list(std::string_view name, std::vector<std::string> &value,
            std::string_view help, std::string_view valueName,
            bool commaSeparated = true) override;
  void bytes(std::string_view name, uint64_t &value, std::string_view help,
             std::string_view zeroMeans = {}) override;
  void choice(std::string_view name, ChoiceRef value,
              std::string_view help) override;
  using OptionBinder::choice;

  /// Copies every option's value into its field; on an invalid value
  /// returns false with `error` naming the option.
  bool load(std::string &error) const;

private:
  template <typename T, typename... Args>
  mlir::detail::PassOptions::Option<T> &make(std::string_view name,
                                             Args &&...args);
  template <typename T, typename... Args>
  mlir::detail::PassOptions::ListOption<T> &makeList(std::string_view name,
                                                     Args &&...args);

  mlir::Pass *pass = nullptr;
  mlir::detail::PassOptions *options = nullptr;
  std::vector<std::unique_ptr<llvm::cl::Option>> owned;
  std::vector<std::function<std::string()>> loaders;
  /// Texts built here that cl options point to.
  std::vector<std::unique_ptr<std::string>> texts;
};

/// A pass's options struct with its binder: a member of the pass,
/// constructed in each of its constructors (the copy constructor passes the
/// other's `value`).
template <typename Options> struct BoundPassOptions {
  BoundPassOptions(mlir::Pass &pass, const Options &initial)
      : value(initial), binder(pass) {
    value.bindOptions(binder);
  }
  /// Copies the pass's parsed options into `value`; on an invalid value
  /// emits an error at `anchor` and fails.
  mlir::LogicalResult load(mlir::Operation *anchor) {
    std::string error;
    if (binder.load(error))
      return mlir::success();
    return anchor->emitError() << error;
  }
  Options value;
  PassOptionsBinder binder;
};

} // namespace fusec

#endif // FUSEC_PASS_PASSOPTIONS_H
