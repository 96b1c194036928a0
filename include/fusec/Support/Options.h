//===- Options.h - One declaration per option -------------------*- C++ -*-===//
//
// Every option of fusec lives in a plain struct of its concern (fusion,
// mixed precision, training, code generation, running, ...) whose
// `bindOptions(OptionBinder &)` names and describes each field once. Binders
// attach that one declaration to a surface (after IREE's OptionsBinder):
//
//  * the LLVM command line of `fusec` (fusec/Driver/CommandLine.h),
//  * the options of a pass and of the `fusec-pipeline` textual pipeline
//    (fusec/Pass/PassOptions.h),
//  * the command line of the MLIR-free `fusec-run` (ArgumentParser, below),
//  * the generated reference docs/reference/FusecOptions.md (MarkdownBinder).
//
// So an option has one spelling, one default and one description
// everywhere. Plain C++: the runtime's options use it too.
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_SUPPORT_OPTIONS_H
#define FUSEC_SUPPORT_OPTIONS_H

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace fusec {

/// One allowed value of a choice option.
struct OptionChoice {
  std::string_view name;
  int value;
  std::string_view description;
};

/// A choice option's value seen as an int (the binders store ints; the
/// struct keeps its enum).
struct ChoiceRef {
  std::function<int()> get;
  std::function<void(int)> set;
  std::vector<OptionChoice> choices;
  /// The name of the current value.
  std::string_view currentName() const;
  /// "a|b|c".
  std::string names() const;
  /// Sets the value named `text`; otherwise returns the error every binder
  /// reports: "invalid value 'x' for --name: expected a|b|c".
  std::optional<std::string> assign(std::string_view option,
                                    std::string_view text) const;
  /// `help` followed by each value and its description.
  std::string describe(std::string_view help) const;
};

class OptionBinder {
public:
  virtual ~OptionBinder();

  /// Starts the options of one concern (a heading in --help and the
  /// reference; a no-op for binders without headings).
  virtual void group(std::string_view name, std::string_view description) {}

  /// A boolean. On a command line, `--name`, `--name=true|false`, and for
  /// options that are on by default also `--no-name`.
  virtual void flag(std::string_view name, bool &value,
                    std::string_view help) = 0;
  /// An integer, at least `minimum`.
  virtual void integer(std::string_view name, int64_t &value,
                       std::string_view help, int64_t minimum = INT64_MIN) = 0;
  /// A floating-point number.
  virtual void number(std::string_view name, double &value,
                      std::string_view help) = 0;
  virtual void text(std::string_view name, std::string &value,
                    std::string_view help, std::string_view valueName) = 0;
  /// A list: each occurrence adds its value, split at commas when
  /// `commaSeparated` (names), kept whole otherwise (paths).
  virtual void list(std::string_view name, std::vector<std::string> &value,
                    std::string_view help, std::string_view valueName,
                    bool commaSeparated = true) = 0;
  /// A byte count: digits with an optional K, M or G suffix (powers of
  /// 1024). 0 is allowed only when `zeroMeans` is not empty (and the help
  /// then says what 0 means).
  virtual void bytes(std::string_view name, uint64_t &value,
                     std::string_view help,
                     std::string_view zeroMeans = {}) = 0;
  /// One of named values.
  virtual void choice(std::string_view name, ChoiceRef value,
                      std::string_view help) = 0;

  /// choice() for an enum field.
  template <typename E>
  void choice(
      std::string_view name, E &value,
      std::initializer_list<std::tuple<E, std::string_view, std::string_view>>
          choices,
      std::string_view help) {
    ChoiceRef ref;
    ref.get = [&value] { return int(value); };
    ref.set = [&value](int v) { value = E(v); };
    for (const auto &[e, n, d] : choices)
      ref.choices.push_back({n, int(e), d});
    choice(name, std::move(ref), help);
  }
};

/// Parses "1234", "64K", "512M", "8G" (case-insensitive suffix); nullopt
/// when malformed or when the value overflows.
std::optional<uint64_t> parseByteCount(std::string_view text);

/// "256M", "1.5 GiB"-style rendering for messages: exact with a suffix when
/// the count is a multiple of one, else bytes.
std::string formatByteCount(uint64_t bytes);

/// The message every binder gives for a bad option value:
/// "invalid value 'TEXT' for --OPTION: EXPECTED".
std::string invalidOptionValue(std::string_view option, std::string_view text,
                               std::string_view expected);

/// Parses a byte-count option's text into `value`; the message on failure
/// (zero is rejected unless `zeroAllowed`).
std::optional<std::string> assignByteCount(std::string_view option,
                                           std::string_view text,
                                           bool zeroAllowed, uint64_t &value);

/// The message for an integer option below its minimum, if it is.
/// A whole decimal int64 / a whole floating-point number; nullopt unless
/// every character is used (the one parsing of both tools' options).
std::optional<int64_t> parseInteger(const std::string &text);
std::optional<double> parseNumber(const std::string &text);

std::optional<std::string> checkMinimum(std::string_view option, int64_t value,
                                        int64_t minimum);

/// A command-line parser over OptionBinder for tools without LLVM
/// (fusec-run): `--name=value` or `--name value`, `--no-name` for flags,
/// positionals collected in order, `--help` generated from the bindings.
class ArgumentParser : public OptionBinder {
public:
  explicit ArgumentParser(std::string toolName, std::string usage);
  ~ArgumentParser() override;

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

  /// What `--version` prints (computed when asked); without it, --version
  /// is an unknown option.
  void setVersion(std::function<std::string()> text) {
    versionText = std::move(text);
  }

  enum class Result { Ok, Help, Error };
  /// Parses argv[1..argc). On Help, the help text (or the version) is in
  /// `message`; on Error, a one-line message ("unknown option '--x'").
  Result parse(int argc, char **argv, std::vector<std::string> &positionals,
               std::string &message);

  std::string help() const;

private:
  struct Option;
  Option &add(std::string_view name, std::string_view help,
              std::string valueName, bool takesValue);
  Option *find(std::string_view name);
  std::string tool, usage;
  std::function<std::string()> versionText;
  std::vector<Option> options;
  std::vector<std::pair<size_t, std::string>> headings; // Before option i.
};

/// Writes the Markdown reference of the options bound to it: a section per
/// group, a table row per option with its spelling, type, default and
/// description.
class MarkdownBinder : public OptionBinder {
public:
  explicit MarkdownBinder(std::string &out) : out(out) {}
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

private:
  void row(std::string_view name, std::string_view type,
           std::string_view defaultValue, std::string_view help);
  std::string &out;
  bool tableOpen = false;
};

/// For messages: "1536 bytes", "33560320 bytes (32.0 MiB)" (rounded down).
std::string describeBytes(uint64_t bytes);

/// Formats a double the way the binders print defaults ("0.01", "1e-08").
std::string formatOptionNumber(double value);

} // namespace fusec

#endif // FUSEC_SUPPORT_OPTIONS_H
