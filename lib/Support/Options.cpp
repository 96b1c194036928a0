//===- Options.cpp - One declaration per option ---------------------------===//

#include "fusec/Support/Options.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

using namespace fusec;

OptionBinder::~OptionBinder() = default;

std::string_view ChoiceRef::currentName() const {
  int v = get();
  for (const OptionChoice &c : choices)
    if (c.value == v)
      return c.name;
  return "?";
}

std::string ChoiceRef::names() const {
  std::string out;
  for (const OptionChoice &c : choices)
    out += (out.empty() ? "" : "|") + std::string(c.name);
  return out;
}

std::optional<std::string> ChoiceRef::assign(std::string_view option,
                                             std::string_view text) const {
  for (const OptionChoice &c : choices)
    if (c.name == text) {
      set(c.value);
      return std::nullopt;
    }
  return invalidOptionValue(option, text, "expected " + names());
}

std::string fusec::invalidOptionValue(std::string_view option,
                                      std::string_view text,
                                      std::string_view expected) {
  return "invalid value '" + std::string(text) + "' for --" +
         std::string(option) + ": " + std::string(expected);
}

std::optional<std::string> fusec::assignByteCount(std::string_view option,
                                                  std::string_view text,
                                                  bool zeroAllowed,
                                                  uint64_t &value) {
  std::optional<uint64_t> v = parseByteCount(text);
  if (!v || (*v == 0 && !zeroAllowed))
    return invalidOptionValue(option, text,
                              std::string("expected a ") +
                                  (zeroAllowed ? "" : "positive ") +
                                  "byte count with an optional K/M/G suffix");
  value = *v;
  return std::nullopt;
}

std::optional<std::string> fusec::checkMinimum(std::string_view option,
                                               int64_t value, int64_t minimum) {
  if (value >= minimum)
    return std::nullopt;
  return invalidOptionValue(option, std::to_string(value),
                            "must be at least " + std::to_string(minimum));
}

std::string ChoiceRef::describe(std::string_view help) const {
  std::string out = std::string(help) + ":";
  for (const OptionChoice &c : choices)
    out += " " + std::string(c.name) + " (" + std::string(c.description) + "),";
  out.back() = '.';
  return out;
}

std::optional<uint64_t> fusec::parseByteCount(std::string_view text) {
  uint64_t scale = 1;
  if (!text.empty()) {
    switch (std::toupper((unsigned char)text.back())) {
    case 'K':
      scale = 1ull << 10;
      break;
    case 'M':
      scale = 1ull << 20;
      break;
    case 'G':
      scale = 1ull << 30;
      break;
    default:
      break;
    }
    if (scale != 1)
      text.remove_suffix(1);
  }
  if (text.empty())
    return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return std::nullopt;
    if (value > (UINT64_MAX - uint64_t(c - '0')) / 10)
      return std::nullopt;
    value = value * 10 + uint64_t(c - '0');
  }
  if (value > UINT64_MAX / scale)
    return std::nullopt;
  return value * scale;
}

std::string fusec::formatByteCount(uint64_t bytes) {
  const char *suffixes[] = {"G", "M", "K"};
  const int shifts[] = {30, 20, 10};
  for (int i = 0; i < 3; ++i) {
    uint64_t unit = 1ull << shifts[i];
    if (bytes >= unit && bytes % unit == 0)
      return std::to_string(bytes / unit) + suffixes[i];
  }
  return std::to_string(bytes);
}

std::string fusec::describeBytes(uint64_t bytes) {
  std::string out = std::to_string(bytes) + " bytes";
  const char *units[] = {"GiB", "MiB", "KiB"};
  const int shifts[] = {30, 20, 10};
  for (int i = 0; i < 3; ++i)
    if (bytes >= (1ull << shifts[i])) {
      // Rounded down, so that a limit just below a need never reads as
      // equal to it: 8191 bytes is 7.9 KiB.
      uint64_t whole = bytes >> shifts[i];
      uint64_t tenths = ((bytes & ((1ull << shifts[i]) - 1)) * 10) >> shifts[i];
      return out + " (" + std::to_string(whole) + "." + std::to_string(tenths) +
             " " + units[i] + ")";
    }
  return out;
}

std::string fusec::formatOptionNumber(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::optional<int64_t> fusec::parseInteger(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno || *end)
    return std::nullopt;
  return int64_t(v);
}

std::optional<double> fusec::parseNumber(const std::string &text) {
  if (text.empty())
    return std::nullopt;
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (errno || *end)
    return std::nullopt;
  return v;
}

static std::optional<bool> parseBool(const std::string &text) {
  if (text == "true" || text == "1")
    return true;
  if (text == "false" || text == "0")
    return false;
  return std::nullopt;
}

static std::vector<std::string> splitCommas(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    if (comma > start)
      out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// ArgumentParser
//===----------------------------------------------------------------------===//

struct ArgumentParser::Option {
  std::string name, help, valueName;
  bool takesValue = true;
  /// For flags on by default: accepts --no-<name>.
  bool negatable = false;
  bool isList = false;
  /// Sets the value from text; returns an error message or "".
  std::function<std::string(const std::string &)> set;
  std::function<void()> clearList; // Lists: the first occurrence replaces.
  bool seen = false;
};

ArgumentParser::ArgumentParser(std::string toolName, std::string usage)
    : tool(std::move(toolName)), usage(std::move(usage)) {}

ArgumentParser::~ArgumentParser() = default;

ArgumentParser::Option &ArgumentParser::add(std::string_view name,
                                            std::string_view help,
                                            std::string valueName,
                                            bool takesValue) {
  Option o;
  o.name = std::string(name);
  o.help = std::string(help);
  o.valueName = std::move(valueName);
  o.takesValue = takesValue;
  options.push_back(std::move(o));
  return options.back();
}

ArgumentParser::Option *ArgumentParser::find(std::string_view name) {
  for (Option &o : options)
    if (o.name == name)
      return &o;
  return nullptr;
}

void ArgumentParser::group(std::string_view name,
                           std::string_view description) {
  headings.emplace_back(options.size(), std::string(description));
}

void ArgumentParser::flag(std::string_view name, bool &value,
                          std::string_view help) {
  Option &o = add(name, help, "", /*takesValue=*/false);
  o.negatable = value;
  o.set = [&value, n = std::string(name)](const std::string &text) {
    std::optional<bool> v = parseBool(text);
    if (!v)
      return invalidOptionValue(n, text, "expected true or false");
    value = *v;
    return std::string();
  };
}

void ArgumentParser::integer(std::string_view name, int64_t &value,
                             std::string_view help, int64_t minimum) {
  Option &o = add(name, help, "N", true);
  o.set = [&value, minimum, n = std::string(name)](const std::string &text) {
    std::optional<int64_t> v = parseInteger(text);
    if (!v)
      return invalidOptionValue(n, text, "expected an integer");
    if (std::optional<std::string> why = checkMinimum(n, *v, minimum))
      return *why;
    value = *v;
    return std::string();
  };
}

void ArgumentParser::number(std::string_view name, double &value,
                            std::string_view help) {
  Option &o = add(name, help, "X", true);
  o.set = [&value, n = std::string(name)](const std::string &text) {
    std::optional<double> v = parseNumber(text);
    if (!v)
      return invalidOptionValue(n, text, "expected a number");
    value = *v;
    return std::string();
  };
}

void ArgumentParser::text(std::string_view name, std::string &value,
                          std::string_view help, std::string_view valueName) {
  Option &o = add(name, help, std::string(valueName), true);
  o.set = [&value](const std::string &text) {
    value = text;
    return std::string();
  };
}

void ArgumentParser::list(std::string_view name,
                          std::vector<std::string> &value,
                          std::string_view help, std::string_view valueName,
                          bool commaSeparated) {
  Option &o = add(name, help, std::string(valueName), true);
  o.isList = true;
  o.clearList = [&value] { value.clear(); };
  o.set = [&value, commaSeparated](const std::string &text) {
    if (!commaSeparated) {
      value.push_back(text);
      return std::string();
    }
    for (std::string &item : splitCommas(text))
      value.push_back(std::move(item));
    return std::string();
  };
}

void ArgumentParser::bytes(std::string_view name, uint64_t &value,
                           std::string_view help, std::string_view zeroMeans) {
  std::string text(help);
  if (!zeroMeans.empty())
    text += " (0: " + std::string(zeroMeans) + ")";
  Option &o = add(name, text, "SIZE", true);
  o.set = [&value, zero = !zeroMeans.empty(),
           n = std::string(name)](const std::string &text) {
    return assignByteCount(n, text, zero, value).value_or("");
  };
}

void ArgumentParser::choice(std::string_view name, ChoiceRef value,
                            std::string_view help) {
  Option &o = add(name, value.describe(help), value.names(), true);
  o.set = [value, n = std::string(name)](const std::string &text) {
    return value.assign(n, text).value_or("");
  };
}

ArgumentParser::Result
ArgumentParser::parse(int argc, char **argv,
                      std::vector<std::string> &positionals,
                      std::string &message) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      message = help();
      return Result::Help;
    }
    if (arg == "--version" && versionText) {
      message = versionText();
      return Result::Help;
    }
    if (arg.size() < 2 || arg.compare(0, 2, "--") != 0 || arg == "--") {
      if (!arg.empty() && arg[0] == '-' && arg != "-") {
        message = "unknown option '" + arg + "'";
        return Result::Error;
      }
      positionals.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    bool hasValue = false;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      hasValue = true;
    }
    Option *o = find(name);
    bool negated = false;
    if (!o && name.compare(0, 3, "no-") == 0) {
      o = find(name.substr(3));
      negated = o && !o->takesValue && o->negatable && !hasValue;
      if (!negated)
        o = nullptr;
    }
    if (!o) {
      message = "unknown option '--" + name + "'";
      return Result::Error;
    }
    if (negated) {
      value = "false";
    } else if (!o->takesValue) {
      if (!hasValue)
        value = "true";
    } else if (!hasValue) {
      if (i + 1 >= argc) {
        message = "option '--" + name + "' needs a value";
        return Result::Error;
      }
      value = argv[++i];
    }
    if (o->isList && !o->seen)
      o->clearList();
    o->seen = true;
    std::string error = o->set(value);
    if (!error.empty()) {
      message = error;
      return Result::Error;
    }
  }
  return Result::Ok;
}

std::string ArgumentParser::help() const {
  std::string out = "usage: " + usage + "\n";
  size_t heading = 0;
  for (size_t i = 0; i < options.size(); ++i) {
    while (heading < headings.size() && headings[heading].first == i)
      out += "\n" + headings[heading++].second + ":\n";
    const Option &o = options[i];
    std::string spelling = "  --" + o.name;
    if (o.takesValue)
      spelling += "=" + o.valueName;
    if (o.negatable)
      spelling += ", --no-" + o.name;
    if (spelling.size() < 30)
      spelling.resize(30, ' ');
    else
      spelling += "\n" + std::string(30, ' ');
    out += spelling + o.help + "\n";
  }
  return out;
}

//===----------------------------------------------------------------------===//
// MarkdownBinder
//===----------------------------------------------------------------------===//

static std::string escapeCell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

void MarkdownBinder::group(std::string_view name,
                           std::string_view description) {
  out += "\n## " + std::string(name) + "\n\n" + std::string(description) +
         "\n\n| Option | Type | Default | Description |\n"
         "|--------|------|---------|-------------|\n";
  tableOpen = true;
}

void MarkdownBinder::row(std::string_view name, std::string_view type,
                         std::string_view defaultValue, std::string_view help) {
  out += "| `" + std::string(name) + "` | " + escapeCell(type) + " | " +
         (defaultValue.empty() ? std::string()
                               : "`" + escapeCell(defaultValue) + "`") +
         " | " + escapeCell(help) + " |\n";
}

void MarkdownBinder::flag(std::string_view name, bool &value,
                          std::string_view help) {
  row(name, "bool", value ? "true" : "false", help);
}

void MarkdownBinder::integer(std::string_view name, int64_t &value,
                             std::string_view help, int64_t minimum) {
  std::string type = "integer";
  if (minimum != INT64_MIN)
    type += " >= " + std::to_string(minimum);
  row(name, type, std::to_string(value), help);
}

void MarkdownBinder::number(std::string_view name, double &value,
                            std::string_view help) {
  row(name, "number", formatOptionNumber(value), help);
}

void MarkdownBinder::text(std::string_view name, std::string &value,
                          std::string_view help, std::string_view valueName) {
  row(name, std::string(valueName), value, help);
}

void MarkdownBinder::list(std::string_view name,
                          std::vector<std::string> &value,
                          std::string_view help, std::string_view valueName,
                          bool commaSeparated) {
  std::string joined;
  for (const std::string &v : value)
    joined += (joined.empty() ? "" : ",") + v;
  row(name, std::string(valueName) + ",...", joined, help);
}

void MarkdownBinder::bytes(std::string_view name, uint64_t &value,
                           std::string_view help, std::string_view zeroMeans) {
  std::string text = std::string(help);
  if (!zeroMeans.empty())
    text += " (0: " + std::string(zeroMeans) + ")";
  row(name, "bytes (K/M/G suffix)", formatByteCount(value), text);
}

void MarkdownBinder::choice(std::string_view name, ChoiceRef value,
                            std::string_view help) {
  std::string type, text = std::string(help) + ":";
  for (const OptionChoice &c : value.choices) {
    type += (type.empty() ? "" : " | ") + std::string(c.name);
    text +=
        " `" + std::string(c.name) + "`: " + std::string(c.description) + ";";
  }
  text.pop_back();
  row(name, "`" + type + "`", value.currentName(), text);
}
