//===- SessionTest.cpp - Several models in one Session --------------------===//
//
// A Session is shared by the models an embedder loads one after another:
// each load must parse its own bytes, and diagnostics must show the lines of
// the model they are about.
//
//===----------------------------------------------------------------------===//

#include "fusec/Driver/Session.h"

#include <gtest/gtest.h>

#include <string>

using namespace fusec;

namespace {

std::unique_ptr<llvm::MemoryBuffer> source(const std::string &text,
                                           const std::string &name) {
  return llvm::MemoryBuffer::getMemBufferCopy(text, name);
}

std::string function(const std::string &name) {
  return "func.func @" + name +
         "(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
         "  %0 = fusec.exp %x : tensor<4xf32>\n"
         "  return %0 : tensor<4xf32>\n}\n";
}

/// Loads a model with an unknown operation on line 2 into `session` and
/// checks the error points at it and shows its line.
void expectErrorShowsItsLine(Session &session) {
  std::string bad = function("bad");
  bad.replace(bad.find("fusec.exp"), 9, "fusec.nope");
  EXPECT_TRUE(mlir::failed(session.loadBuffer(source(bad, "bad.mlir"))));
  std::vector<Diagnostic> diags = session.takeDiagnostics();
  ASSERT_FALSE(diags.empty());
  EXPECT_EQ(diags.front().location, "bad.mlir:2:8");
  EXPECT_NE(diags.front().rendered.find("fusec.nope"), std::string::npos)
      << diags.front().rendered;
}

TEST(Session, EachLoadParsesItsOwnModel) {
  Session session;
  for (const char *name : {"first", "second", "third"}) {
    mlir::FailureOr<Model> model =
        session.loadBuffer(source(function(name), std::string(name) + ".mlir"));
    ASSERT_TRUE(mlir::succeeded(model)) << name;
    mlir::FailureOr<mlir::func::FuncOp> entry = model->findEntry("");
    ASSERT_TRUE(mlir::succeeded(entry)) << name;
    EXPECT_EQ(entry->getSymName(), name);
  }
  EXPECT_FALSE(session.hasErrors());
}

TEST(Session, ErrorsShowTheLinesOfTheirModel) {
  Session session;
  ASSERT_TRUE(mlir::succeeded(
      session.loadBuffer(source(function("good"), "good.mlir"))));
  expectErrorShowsItsLine(session);
}

TEST(Session, RenewsItsContextOnlyWhenNoModelIsAlive) {
  Session session;
  mlir::MLIRContext *first = &session.getContext();
  // One model kept alive: the context must stay however much is loaded.
  mlir::FailureOr<Model> kept =
      session.loadBuffer(source(function("kept"), "kept.mlir"));
  ASSERT_TRUE(mlir::succeeded(kept));
  for (int64_t i = 0; i < 2 * Session::kRenewAfterModels; ++i)
    ASSERT_TRUE(mlir::succeeded(session.loadBuffer(
        source(function("f" + std::to_string(i)), "f.mlir"))));
  EXPECT_EQ(session.contextRenewals(), 0);
  EXPECT_EQ(kept->getModule().getContext(), first);
  mlir::FailureOr<mlir::func::FuncOp> entry = kept->findEntry("");
  ASSERT_TRUE(mlir::succeeded(entry));
  EXPECT_EQ(entry->getSymName(), "kept");
  // Once it is gone, the next load renews the context, and models load
  // and report errors as before.
  kept = mlir::failure();
  mlir::FailureOr<Model> next =
      session.loadBuffer(source(function("next"), "next.mlir"));
  ASSERT_TRUE(mlir::succeeded(next));
  EXPECT_EQ(session.contextRenewals(), 1);
  EXPECT_EQ(next->getModule().getContext(), &session.getContext());
  EXPECT_EQ(next->findEntry("")->getSymName(), "next");
  expectErrorShowsItsLine(session);
}

} // namespace
