//===- Session.h - Loading models, collecting diagnostics -------*- C++ -*-===//
//
// The library under the tools and the Python bindings. A Session owns an
// MLIRContext with fusec's dialects and the source buffers of the models it
// loads, and collects every diagnostic (rendered as `file:line:col: error:
// ...` with the source line) instead of printing it; a Model is one loaded
// module. Loading recognizes the format: MLIR text or bytecode in the fusec
// or TOSA dialects, or an ONNX model (a .onnx file, or protobuf content).
//
//===----------------------------------------------------------------------===//

#ifndef FUSEC_DRIVER_SESSION_H
#define FUSEC_DRIVER_SESSION_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <string>
#include <vector>

namespace fusec {

struct Diagnostic {
  enum class Severity { Error, Warning, Note, Remark };
  Severity severity = Severity::Error;
  /// "file:line:col", or empty without a location.
  std::string location;
  std::string message;
  /// As a terminal shows it: "file:line:col: error: message", the source
  /// line and a caret, then the notes.
  std::string rendered;
};

class Model;
class OptionBinder;

/// How models in other formats than MLIR are imported.
struct ImportOptions {
  /// --input-shape=NAME=D0xD1x...: binds the dynamic dimensions of an ONNX
  /// input (repeatable).
  std::vector<std::string> inputShapes;
  /// --batch=N: the size of a dynamic first dimension of any ONNX input.
  int64_t batch = 0;
  /// --constant-input=NAME=FILE.npy: an ONNX input given its value at
  /// compile time (repeatable).
  std::vector<std::string> constantInputs;
  /// --trainable=all|none|PATTERN,...: the ONNX initializers imported as
  /// trainable parameters; empty: "all" when `training`, else "none".
  std::vector<std::string> trainable;
  /// --frozen=PATTERN,...: initializers kept constant.
  std::vector<std::string> frozen;
  /// Set by a caller that trains the model (not an option).
  bool training = false;

  /// The --trainable patterns in effect.
  std::vector<std::string> trainablePatterns() const;
  void bindOptions(OptionBinder &binder);
};

/// A Session's context keeps every attribute and type its models created
/// (MLIR never frees them), so a Session that loads model after model
/// renews its context (and drops the sources of the models it loaded) on a
/// load when no model it loaded is alive any more and it has loaded
/// kRenewAfterModels models or kRenewAfterBytes bytes since the last
/// renewal. A service that compiles one model at a time through one Session
/// stays flat; a context obtained from getContext() is valid until then.
class Session {
public:
  static constexpr int64_t kRenewAfterModels = 64;
  static constexpr uint64_t kRenewAfterBytes = uint64_t(64) << 20;

  Session();
  ~Session();
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  mlir::MLIRContext &getContext() { return *context; }

  /// The diagnostics emitted since the last call, in order.
  std::vector<Diagnostic> takeDiagnostics();
  bool hasErrors() const { return errors > 0; }
  /// Records an error without a location, rendered "<who>: error: ...".
  void error(const std::string &message, const std::string &who = "fusec");
  /// Records a diagnostic without a location, rendered
  /// "<who>: <severity>: <message>".
  void record(fusec::Diagnostic::Severity severity, const std::string &message,
              const std::string &who = "fusec");
  /// Records a warning without a location, rendered "<who>: warning: ...".
  void warning(const std::string &message, const std::string &who = "fusec");
  /// Records a note without a location, rendered "<who>: note: ...".
  void note(const std::string &message, const std::string &who = "fusec");

  /// Loads the model in file `path` ("-" is stdin).
  mlir::FailureOr<Model> loadFile(const std::string &path,
                                  const ImportOptions &import = {});
  /// Loads a model from memory; `buffer`'s identifier names it in
  /// diagnostics.
  mlir::FailureOr<Model> loadBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                    const ImportOptions &import = {});

  /// For a process about to exit (the tools): the models this session
  /// loaded and its context are left to the operating system instead of
  /// being destroyed, as clang's -disable-free does (1.2 s of the 22 s a
  /// 1M-operation model takes).
  void skipTeardown() { *liveToken = true; }

  /// How many times the context was renewed (for tests and benchmarks).
  int64_t contextRenewals() const { return renewals; }

private:
  void createContext();
  /// Renews the context if no model is alive and enough was loaded.
  void renewContextIfIdle();
  /// A model of this session, holding a reference to the liveness token.
  Model makeModel(mlir::OwningOpRef<mlir::ModuleOp> module, std::string name);

  mlir::FailureOr<Model> loadOnnx(const std::string &name,
                                  llvm::StringRef bytes,
                                  const ImportOptions &import);

  struct Handler;
  std::unique_ptr<mlir::MLIRContext> context;
  /// The models' sources, one manager each (what the parser reads).
  std::vector<std::unique_ptr<llvm::SourceMgr>> sources;
  /// Views of all of them, for rendering diagnostics (a name loaded twice
  /// shows the first one's lines).
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<Handler> handler;
  std::vector<Diagnostic> diagnostics;
  int64_t errors = 0;
  /// Every Model of this session holds a copy: use_count() - 1 are alive.
  /// Its value: skipTeardown() was called.
  std::shared_ptr<bool> liveToken;
  int64_t loadsSinceRenewal = 0, renewals = 0;
  uint64_t bytesSinceRenewal = 0;
};

/// One loaded module, valid while its Session lives.
class Model {
public:
  /// `session` (a Session's liveness token) keeps the Session from renewing
  /// its context while this model lives; null for a model the session does
  /// not own.
  Model(mlir::OwningOpRef<mlir::ModuleOp> module, std::string name,
        std::shared_ptr<bool> session = nullptr);
  ~Model();
  Model(Model &&) = default;
  Model &operator=(Model &&) = default;

  mlir::ModuleOp getModule() { return *module; }
  /// Where it came from (the file name), for messages.
  const std::string &getName() const { return name; }

  /// `name` when not empty (a function with a body: a declaration is an
  /// error at it), else the only public function with a body; an error at
  /// the module otherwise.
  mlir::FailureOr<mlir::func::FuncOp> findEntry(llvm::StringRef name);

private:
  std::shared_ptr<bool> session;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::string name;
};

} // namespace fusec

#endif // FUSEC_DRIVER_SESSION_H
