//===- CommandLine.h - Options structs as LLVM command-line flags -*- C++
//-*-===//
//
// Binds fusec's options structs (fusec/Support/Options.h) to llvm::cl flags
// of the `fusec` tool, one option category per group, so that `--help`
// lists each concern under its heading. After cl::ParseCommandLineOptions,
// load() copies the values into the structs and validates them.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_COMMANDLINE_H
#define FUSEC_DRIVER_COMMANDLINE_H

#include "fusec/Support/Options.h"

#include "llvm/Support/CommandLine.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fusec {

class CommandLineBinder final : public OptionBinder {
public:
  CommandLineBinder();
  ~CommandLineBinder() override;

  void group(std::string_view name, std::string_view description) override;
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

  /// A positional argument.
  void positional(std::string &value, std::string_view valueName,
                  std::string_view defaultValue);

  /// Copies every flag's value into its field; false with `error` naming
  /// the flag for an invalid value.
  bool load(std::string &error) const;

  /// Whether the flag `name` was given on the command line.
  bool given(std::string_view name) const;
  /// The flags of group `group` given on the command line ("--steps").
  std::vector<std::string> givenIn(std::string_view group) const;

  /// The categories of the bound options (everything else can be hidden
  /// from --help).
  bool owns(const llvm::cl::OptionCategory *category) const;

private:
  llvm::cl::OptionCategory &category();
  std::vector<std::unique_ptr<llvm::cl::OptionCategory>> categories;
  std::vector<std::string> groupNames;             // One per category.
  std::vector<std::unique_ptr<std::string>> names; // cl keeps StringRefs.
  std::vector<std::unique_ptr<llvm::cl::Option>> owned;
  std::vector<std::function<std::string()>> loaders;
  llvm::StringRef keep(std::string_view text);
};

/// cl::ParseCommandLineOptions, with its complaints rewritten as fusec's
/// errors: "unknown option '--x' (did you mean '--y'?)", "invalid value
/// 'abc' for --steps: expected an integer". False with `error` (one line,
/// without the "fusec: error: " prefix) when the command line is wrong.
bool parseCommandLine(int argc, char **argv, std::string_view overview,
                      std::string &error);

} // namespace fusec

#endif // FUSEC_DRIVER_COMMANDLINE_H
