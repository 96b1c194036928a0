//===- CommandLine.cpp - Options structs as LLVM command-line flags -------===//

#include "fusec/Driver/CommandLine.h"

#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <sstream>

namespace cl = llvm::cl;
using namespace fusec;

/// `help` followed by the default value shown in --help, unless the text
/// already says what the default is.
static std::string withDefault(std::string_view help,
                               const std::string &value) {
  std::string text(help);
  if (text.find("(default") != std::string::npos)
    return text;
  return text + " (default: " + value + ")";
}

CommandLineBinder::CommandLineBinder() = default;
CommandLineBinder::~CommandLineBinder() = default;

llvm::StringRef CommandLineBinder::keep(std::string_view text) {
  names.push_back(std::make_unique<std::string>(text));
  return *names.back();
}

cl::OptionCategory &CommandLineBinder::category() {
  if (categories.empty())
    group("fusec", "fusec options");
  return *categories.back();
}

void CommandLineBinder::group(std::string_view name,
                              std::string_view description) {
  categories.push_back(
      std::make_unique<cl::OptionCategory>(keep(description), ""));
  groupNames.emplace_back(name);
}

std::vector<std::string>
CommandLineBinder::givenIn(std::string_view group) const {
  std::vector<std::string> flags;
  for (size_t g = 0; g < categories.size(); ++g) {
    if (groupNames[g] != group)
      continue;
    for (const auto &o : owned)
      if (o->getNumOccurrences() > 0 &&
          llvm::is_contained(o->Categories, categories[g].get()))
        flags.push_back("--" + o->ArgStr.str());
  }
  return flags;
}

bool CommandLineBinder::owns(const cl::OptionCategory *c) const {
  for (const auto &mine : categories)
    if (mine.get() == c)
      return true;
  return false;
}

bool CommandLineBinder::given(std::string_view name) const {
  for (const auto &o : owned)
    if (o->ArgStr == llvm::StringRef(name.data(), name.size()))
      return o->getNumOccurrences() > 0;
  return false;
}

void CommandLineBinder::flag(std::string_view name, bool &value,
                             std::string_view help) {
  auto *on = new cl::opt<bool>(
      keep(name), cl::desc(keep(withDefault(help, value ? "on" : "off"))),
      cl::init(value), cl::cat(category()));
  owned.emplace_back(on);
  cl::opt<bool> *off = nullptr;
  if (value) {
    // On by default: `--no-NAME` turns it off (the later flag wins).
    off = new cl::opt<bool>(keep("no-" + std::string(name)),
                            cl::desc(keep("Turn off --" + std::string(name))),
                            cl::init(false), cl::cat(category()));
    owned.emplace_back(off);
  }
  loaders.push_back([on, off, &value] {
    value = *on;
    if (off && *off &&
        (!on->getNumOccurrences() || off->getPosition() > on->getPosition()))
      value = false;
    return std::string();
  });
}

// Integers and numbers are read as text and parsed here, so that a bad
// value is fusec's error ("invalid value 'abc' for --steps: expected an
// integer") rather than LLVM's message on stderr.
/// A name of fusec's that one of LLVM's own options also has (LLVM's
/// libraries register an undocumented --threads) is fusec's: LLVM's is
/// dropped.
static void claimName(std::string_view name) {
  auto &registered = cl::getRegisteredOptions();
  auto it = registered.find(llvm::StringRef(name.data(), name.size()));
  if (it != registered.end())
    it->second->removeArgument();
}

void CommandLineBinder::integer(std::string_view name, int64_t &value,
                                std::string_view help, int64_t minimum) {
  claimName(name);
  auto *o = new cl::opt<std::string>(
      keep(name), cl::desc(keep(withDefault(help, std::to_string(value)))),
      cl::value_desc("N"), cl::cat(category()));
  owned.emplace_back(o);
  loaders.push_back([o, &value, minimum, n = std::string(name)] {
    if (o->getNumOccurrences() == 0)
      return std::string();
    std::optional<int64_t> v = parseInteger(*o);
    if (!v)
      return invalidOptionValue(n, *o, "expected an integer");
    if (std::optional<std::string> why = checkMinimum(n, *v, minimum))
      return *why;
    value = *v;
    return std::string();
  });
}

void CommandLineBinder::number(std::string_view name, double &value,
                               std::string_view help) {
  std::ostringstream shown;
  shown << value;
  auto *o = new cl::opt<std::string>(
      keep(name), cl::desc(keep(withDefault(help, shown.str()))),
      cl::value_desc("X"), cl::cat(category()));
  owned.emplace_back(o);
  loaders.push_back([o, &value, n = std::string(name)] {
    if (o->getNumOccurrences() == 0)
      return std::string();
    std::optional<double> v = parseNumber(*o);
    if (!v)
      return invalidOptionValue(n, *o, "expected a number");
    value = *v;
    return std::string();
  });
}

void CommandLineBinder::text(std::string_view name, std::string &value,
                             std::string_view help,
                             std::string_view valueName) {
  auto *o = new cl::opt<std::string>(
      keep(name),
      cl::desc(
          keep(value.empty() ? std::string(help) : withDefault(help, value))),
      cl::value_desc(keep(valueName)), cl::init(value), cl::cat(category()));
  owned.emplace_back(o);
  loaders.push_back([o, &value] {
    value = *o;
    return std::string();
  });
}

void CommandLineBinder::list(std::string_view name,
                             std::vector<std::string> &value,
                             std::string_view help, std::string_view valueName,
                             bool commaSeparated) {
  auto *o = new cl::list<std::string>(keep(name), cl::desc(keep(help)),
                                      cl::value_desc(keep(valueName)),
                                      cl::cat(category()));
  if (commaSeparated)
    o->setMiscFlag(cl::CommaSeparated);
  owned.emplace_back(o);
  loaders.push_back([o, &value] {
    if (o->getNumOccurrences())
      value.assign(o->begin(), o->end());
    return std::string();
  });
}

void CommandLineBinder::bytes(std::string_view name, uint64_t &value,
                              std::string_view help,
                              std::string_view zeroMeans) {
  std::string desc = std::string(help);
  if (!zeroMeans.empty())
    desc += " (0: " + std::string(zeroMeans) + ")";
  desc += "; bytes with an optional K/M/G suffix (default " +
          formatByteCount(value) + ")";
  auto *o = new cl::opt<std::string>(
      keep(name), cl::desc(keep(desc)), cl::value_desc("size"),
      cl::init(formatByteCount(value)), cl::cat(category()));
  owned.emplace_back(o);
  loaders.push_back(
      [o, &value, zero = !zeroMeans.empty(), n = std::string(name)] {
        return assignByteCount(n, o->getValue(), zero, value).value_or("");
      });
}

void CommandLineBinder::choice(std::string_view name, ChoiceRef value,
                               std::string_view help) {
  // A string checked on load, so that a bad value gets the message every
  // binder gives (not llvm::cl's).
  auto *o = new cl::opt<std::string>(
      keep(name),
      cl::desc(keep(
          withDefault(value.describe(help), std::string(value.currentName())))),
      cl::value_desc(keep(value.names())),
      cl::init(std::string(value.currentName())), cl::cat(category()));
  owned.emplace_back(o);
  loaders.push_back([o, value, n = std::string(name)] {
    return value.assign(n, o->getValue()).value_or("");
  });
}

void CommandLineBinder::positional(std::string &value,
                                   std::string_view valueName,
                                   std::string_view defaultValue) {
  auto *o = new cl::opt<std::string>(cl::Positional, cl::desc(keep(valueName)),
                                     cl::init(std::string(defaultValue)),
                                     cl::cat(category()));
  owned.emplace_back(o);
  loaders.push_back([o, &value] {
    value = *o;
    return std::string();
  });
}

bool CommandLineBinder::load(std::string &error) const {
  for (const auto &loader : loaders) {
    std::string why = loader();
    if (!why.empty()) {
      error = why;
      return false;
    }
  }
  return true;
}

bool fusec::parseCommandLine(int argc, char **argv, std::string_view overview,
                             std::string &error) {
  std::string text;
  llvm::raw_string_ostream errs(text);
  if (cl::ParseCommandLineOptions(
          argc, argv, llvm::StringRef(overview.data(), overview.size()), &errs))
    return true;
  // LLVM's lines start with the program's name; the first is the error,
  // the rest add to it.
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n', -1, /*KeepEmpty=*/false);
  std::string program = llvm::sys::path::filename(argv[0]).str() + ": ";
  auto strip = [&](llvm::StringRef line) {
    line = line.trim();
    line.consume_front(program);
    line.consume_front(std::string(argv[0]) + ": ");
    return line;
  };
  llvm::SmallVector<llvm::StringRef, 4> m;
  std::string hint;
  error.clear();
  for (llvm::StringRef raw : lines) {
    llvm::StringRef line = strip(raw);
    if (llvm::Regex("^Unknown command line argument '([^']*)'")
            .match(line, &m)) {
      error = "unknown option '" + m[1].str() + "'";
    } else if (llvm::Regex("^for the (-+[^ ]+) option: '(.*)' value invalid "
                           "for ([a-z ]+) argument!$")
                   .match(line, &m)) {
      std::string kind = m[3].str();
      bool integer = kind.find("long") != std::string::npos ||
                     kind.find("int") != std::string::npos;
      error = "invalid value '" + m[2].str() + "' for " + m[1].str() +
              ": expected " + (integer ? "an integer" : "a " + kind);
    } else if (llvm::Regex("^Did you mean '(-+)([^'=]*)").match(line, &m)) {
      // A one-letter option (-o) is rarely what a long misspelling meant;
      // LLVM's hidden options (its suggestions come from every registered
      // option) are not fusec's to suggest.
      auto &registered = llvm::cl::getRegisteredOptions();
      auto it = registered.find(m[2]);
      bool visible = it != registered.end() &&
                     it->second->getOptionHiddenFlag() == llvm::cl::NotHidden;
      if (m[2].size() > 1 && visible)
        hint = " (did you mean '" + m[1].str() + m[2].str() + "'?)";
    } else if (line.starts_with("Too many positional arguments")) {
      error = "more than one model given";
    } else if (error.empty() && !line.starts_with("Can specify at most")) {
      error = line.str();
    }
  }
  if (error.empty())
    error = "invalid command line";
  error += hint + "; --help lists the options";
  return false;
}