//===- OptionsTest.cpp - One declaration per option -----------------------===//
//
// The MLIR-free binders of fusec/Support/Options.h: the command-line parser
// of fusec-run and the Markdown reference, driven by a test struct that
// declares one option of each kind.
//
//===----------------------------------------------------------------------===//

#include "fusec/Support/Options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace fusec;

namespace {

enum class Color { Red, Green };

struct Sample {
  bool on = true, off = false;
  int64_t count = 4;
  double rate = 0.5;
  std::string name = "x";
  std::vector<std::string> names, paths;
  uint64_t size = 256ull << 20;
  Color color = Color::Red;

  void bindOptions(OptionBinder &b) {
    b.group("sample", "Sample options");
    b.flag("on", on, "On by default");
    b.flag("off", off, "Off by default");
    b.integer("count", count, "A count", 1);
    b.number("rate", rate, "A rate");
    b.text("name", name, "A name", "NAME");
    b.list("names", names, "Names", "n");
    b.list("path", paths, "Paths", "p", /*commaSeparated=*/false);
    b.bytes("size", size, "A size");
    b.choice("color", color,
             {{Color::Red, "red", "the first"},
              {Color::Green, "green", "the second"}},
             "A color");
  }
};

struct Parsed {
  ArgumentParser::Result result;
  Sample sample;
  std::vector<std::string> positionals;
  std::string message;
};

Parsed parse(std::vector<std::string> args) {
  Parsed p;
  ArgumentParser parser("tool", "tool [options] FILE");
  p.sample.bindOptions(parser);
  std::vector<char *> argv = {const_cast<char *>("tool")};
  for (std::string &a : args)
    argv.push_back(a.data());
  p.result =
      parser.parse(int(argv.size()), argv.data(), p.positionals, p.message);
  return p;
}

} // namespace

TEST(Options, ParsesByteCounts) {
  EXPECT_EQ(parseByteCount("0"), 0u);
  EXPECT_EQ(parseByteCount("1234"), 1234u);
  EXPECT_EQ(parseByteCount("64k"), 65536u);
  EXPECT_EQ(parseByteCount("512M"), 536870912u);
  EXPECT_EQ(parseByteCount("8G"), 8589934592u);
  EXPECT_EQ(parseByteCount("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parseByteCount("18446744073709551616"));
  EXPECT_FALSE(parseByteCount("17179869184G")); // 2^34 G overflows.
  EXPECT_FALSE(parseByteCount(""));
  EXPECT_FALSE(parseByteCount("G"));
  EXPECT_FALSE(parseByteCount("-1"));
  EXPECT_FALSE(parseByteCount("1.5G"));
  EXPECT_FALSE(parseByteCount("12T"));
  EXPECT_EQ(formatByteCount(256ull << 20), "256M");
  EXPECT_EQ(formatByteCount(3ull << 30), "3G");
  EXPECT_EQ(formatByteCount(1536), "1536");
  EXPECT_EQ(formatByteCount(2048), "2K");
  EXPECT_EQ(formatByteCount(0), "0");
}

TEST(Options, ParsesEveryKind) {
  Parsed p = parse({"--no-on", "--off", "--count=7", "--rate", "0.25",
                    "--name=abc", "--names=a,b", "--names", "c", "--path=x,y",
                    "--path", "z", "--size=2K", "--color=green", "model.fsx"});
  ASSERT_EQ(p.result, ArgumentParser::Result::Ok) << p.message;
  EXPECT_FALSE(p.sample.on);
  EXPECT_TRUE(p.sample.off);
  EXPECT_EQ(p.sample.count, 7);
  EXPECT_EQ(p.sample.rate, 0.25);
  EXPECT_EQ(p.sample.name, "abc");
  EXPECT_EQ(p.sample.names, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(p.sample.paths, (std::vector<std::string>{"x,y", "z"}));
  EXPECT_EQ(p.sample.size, 2048u);
  EXPECT_EQ(p.sample.color, Color::Green);
  EXPECT_EQ(p.positionals, std::vector<std::string>{"model.fsx"});
}

TEST(Options, KeepsDefaults) {
  Parsed p = parse({});
  ASSERT_EQ(p.result, ArgumentParser::Result::Ok);
  EXPECT_TRUE(p.sample.on);
  EXPECT_EQ(p.sample.count, 4);
  EXPECT_EQ(p.sample.size, 256ull << 20);
  EXPECT_EQ(p.sample.color, Color::Red);
}

TEST(Options, RejectsBadValues) {
  auto error = [](std::vector<std::string> args) {
    Parsed p = parse(std::move(args));
    EXPECT_EQ(p.result, ArgumentParser::Result::Error);
    return p.message;
  };
  EXPECT_EQ(error({"--count=0"}),
            "invalid value '0' for --count: must be at least 1");
  EXPECT_EQ(error({"--count=3x"}),
            "invalid value '3x' for --count: expected an integer");
  EXPECT_EQ(error({"--rate=fast"}),
            "invalid value 'fast' for --rate: expected a number");
  EXPECT_EQ(error({"--on=maybe"}),
            "invalid value 'maybe' for --on: expected true or false");
  EXPECT_EQ(error({"--size=0"}),
            "invalid value '0' for --size: expected a positive "
            "byte count with an optional K/M/G suffix");
  EXPECT_EQ(error({"--color=blue"}),
            "invalid value 'blue' for --color: expected red|green");
  EXPECT_EQ(error({"--frobnicate"}), "unknown option '--frobnicate'");
  // --no- exists only for flags that are on by default.
  EXPECT_EQ(error({"--no-off"}), "unknown option '--no-off'");
  EXPECT_EQ(error({"--no-count"}), "unknown option '--no-count'");
  EXPECT_EQ(error({"--name"}), "option '--name' needs a value");
  EXPECT_EQ(error({"-x"}), "unknown option '-x'");
}

TEST(Options, GeneratesHelp) {
  Parsed p = parse({"--help"});
  ASSERT_EQ(p.result, ArgumentParser::Result::Help);
  EXPECT_NE(p.message.find("usage: tool [options] FILE"), std::string::npos);
  EXPECT_NE(p.message.find("Sample options:"), std::string::npos);
  EXPECT_NE(p.message.find("--on, --no-on"), std::string::npos);
  EXPECT_NE(p.message.find("--color=red|green"), std::string::npos);
}

TEST(Options, WritesTheMarkdownReference) {
  std::string out;
  MarkdownBinder markdown(out);
  Sample sample;
  sample.bindOptions(markdown);
  EXPECT_NE(out.find("## sample\n\nSample options\n"), std::string::npos);
  EXPECT_NE(out.find("| `on` | bool | `true` | On by default |"),
            std::string::npos);
  EXPECT_NE(out.find("| `count` | integer >= 1 | `4` | A count |"),
            std::string::npos);
  EXPECT_NE(out.find("| `size` | bytes (K/M/G suffix) | `256M` | A size |"),
            std::string::npos);
  EXPECT_NE(out.find("| `color` | `red \\| green` | `red` | A color: `red`: "
                     "the first; `green`: the second |"),
            std::string::npos)
      << out;
}
