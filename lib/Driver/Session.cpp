//===- Session.cpp - Loading models, collecting diagnostics ---------------===//

#include "fusec/Driver/Session.h"
#include "fusec/Conversion/OnnxImport.h"
#include "fusec/Conversion/TosaToFusec/TosaToFusec.h"
#include "fusec/InitAll.h"
#include "fusec/Support/Buffer.h"
#include "fusec/Support/File.h"
#include "fusec/Support/Options.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"

#include <sys/stat.h>

using namespace mlir;
using namespace fusec;

namespace {
/// The source manager's rendering, called directly.
struct Renderer : SourceMgrDiagnosticHandler {
  using SourceMgrDiagnosticHandler::emitDiagnostic;
  using SourceMgrDiagnosticHandler::SourceMgrDiagnosticHandler;
};
} // namespace

/// Renders each diagnostic with the source manager (file:line:col, the
/// source line, a caret) into the session's list.
struct Session::Handler {
  Handler(Session &session)
      : session(session),
        renderer(session.sourceMgr, session.context.get(), stream) {
    // Registered after the renderer, so it runs first and takes over.
    id = session.context->getDiagEngine().registerHandler(
        [this](mlir::Diagnostic &diag) {
          collect(diag);
          return success();
        });
  }
  ~Handler() { session.context->getDiagEngine().eraseHandler(id); }

  void collect(mlir::Diagnostic &diag) {
    // Upstream's InferTypeOpInterface verifier adds "failed to infer
    // returned types" after the op's own inference error at the same
    // place: one error is enough.
    if (diag.getSeverity() == DiagnosticSeverity::Error &&
        StringRef(diag.str()).ends_with("op failed to infer returned types") &&
        !session.diagnostics.empty() &&
        session.diagnostics.back().severity ==
            fusec::Diagnostic::Severity::Error &&
        session.diagnostics.back().location == locationOf(diag))
      return;
    fusec::Diagnostic d;
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      d.severity = fusec::Diagnostic::Severity::Error;
      break;
    case DiagnosticSeverity::Warning:
      d.severity = fusec::Diagnostic::Severity::Warning;
      break;
    case DiagnosticSeverity::Note:
      d.severity = fusec::Diagnostic::Severity::Note;
      break;
    case DiagnosticSeverity::Remark:
      d.severity = fusec::Diagnostic::Severity::Remark;
      break;
    }
    // Places in files that have no lines (an ONNX node: "model.onnx:node 3
    // 'conv1' (Conv)") are named locations.
    if (auto name = dyn_cast<NameLoc>(diag.getLocation());
        name && isa<UnknownLoc>(name.getChildLoc())) {
      session.record(d.severity, diag.str(), name.getName().str());
      session.diagnostics.back().location = name.getName().str();
      return;
    }
    auto loc = dyn_cast<FileLineColLoc>(diag.getLocation());
    if (loc && loc.getLine() == 0) {
      // A module's own location (file:0:0) is where pass options and
      // flags are checked: no place in the file, so none is shown.
      session.record(d.severity, diag.str());
      return;
    }
    if (d.severity == fusec::Diagnostic::Severity::Error)
      ++session.errors;
    d.location = locationOf(diag);
    d.message = diag.str();
    text.clear();
    renderer.emitDiagnostic(diag);
    stream.flush();
    d.rendered = std::move(text);
    text.clear();
    session.diagnostics.push_back(std::move(d));
  }

  /// "file:line:col", or empty.
  static std::string locationOf(const mlir::Diagnostic &diag) {
    auto loc = dyn_cast<FileLineColLoc>(diag.getLocation());
    if (!loc)
      return "";
    return loc.getFilename().str() + ":" + std::to_string(loc.getLine()) + ":" +
           std::to_string(loc.getColumn());
  }

  Session &session;
  std::string text;
  llvm::raw_string_ostream stream{text};
  Renderer renderer;
  DiagnosticEngine::HandlerID id;
};

Session::Session() : liveToken(std::make_shared<bool>(false)) {
  createContext();
}

void Session::createContext() {
  DialectRegistry registry;
  registerAllDialects(registry);
  context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  // Diagnostics point at the source line; the generic form of the whole
  // offending op is noise unless asked for (--mlir-print-op-on-diagnostic).
  llvm::cl::Option *printOp =
      llvm::cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
  if (!printOp || !printOp->getNumOccurrences())
    context->printOpOnDiagnostic(false);
  handler = std::make_unique<Handler>(*this);
}

Session::~Session() {
  if (*liveToken) {
    handler.reset();
    (void)context.release();
  }
}

void Session::renewContextIfIdle() {
  if (liveToken.use_count() > 1 || (loadsSinceRenewal < kRenewAfterModels &&
                                    bytesSinceRenewal < kRenewAfterBytes))
    return;
  handler.reset();
  sourceMgr = llvm::SourceMgr();
  sources.clear();
  context.reset();
  createContext();
  loadsSinceRenewal = 0;
  bytesSinceRenewal = 0;
  ++renewals;
}

Model Session::makeModel(OwningOpRef<ModuleOp> module, std::string name) {
  return Model(std::move(module), std::move(name), liveToken);
}

std::vector<fusec::Diagnostic> Session::takeDiagnostics() {
  return std::move(diagnostics);
}

void Session::record(fusec::Diagnostic::Severity severity,
                     const std::string &message, const std::string &who) {
  static const char *const kNames[] = {"error", "warning", "note", "remark"};
  fusec::Diagnostic d;
  d.severity = severity;
  d.message = message;
  d.rendered = who + ": " + kNames[int(severity)] + ": " + message + "\n";
  diagnostics.push_back(std::move(d));
  if (severity == fusec::Diagnostic::Severity::Error)
    ++errors;
}

void Session::error(const std::string &message, const std::string &who) {
  record(fusec::Diagnostic::Severity::Error, message, who);
}

void Session::warning(const std::string &message, const std::string &who) {
  record(fusec::Diagnostic::Severity::Warning, message, who);
}

void Session::note(const std::string &message, const std::string &who) {
  record(fusec::Diagnostic::Severity::Note, message, who);
}

void ImportOptions::bindOptions(OptionBinder &binder) {
  binder.group("import", "Importing ONNX models");
  binder.list("input-shape", inputShapes,
              "The full shape of an input with dynamic dimensions, as "
              "NAME=D0xD1x... (repeatable)",
              "name=shape", /*commaSeparated=*/false);
  binder.list("constant-input", constantInputs,
              "Give an input its value at compile time, as NAME=FILE.npy: "
              "it becomes a constant, so shapes, axes or indices computed "
              "from it fold (repeatable)",
              "name=file.npy", /*commaSeparated=*/false);
  binder.list("trainable", trainable,
              "ONNX initializers to train, imported as parameters named by "
              "the initializer: all, none, or glob patterns on their names "
              "(default: all when training, else none); batch "
              "normalizations whose scale or bias trains use the batch's "
              "statistics and update their running ones",
              "all|none|pattern");
  binder.list("frozen", frozen,
              "ONNX initializers kept constant whatever --trainable says "
              "(glob patterns on their names)",
              "pattern");
  binder.integer("batch", batch,
                 "The size of a dynamic first dimension of any input (0: "
                 "none given)",
                 0);
}

/// Whether `name` names an ONNX file, or `bytes` are one.
static bool isOnnx(StringRef name, StringRef bytes) {
  return name.ends_with(".onnx") || looksLikeOnnx(bytes);
}

std::vector<std::string> ImportOptions::trainablePatterns() const {
  if (trainable.empty())
    return {training ? "all" : "none"};
  return trainable;
}

FailureOr<Model> Session::loadOnnx(const std::string &name, StringRef bytes,
                                   const ImportOptions &import) {
  OnnxImportOptions options;
  options.batch = import.batch;
  options.trainable = import.trainablePatterns();
  options.frozen = import.frozen;
  for (const std::string &spec : import.inputShapes) {
    size_t eq = spec.rfind('=');
    std::vector<int64_t> dims;
    bool ok = eq != std::string::npos && eq > 0 && eq + 1 < spec.size();
    if (ok) {
      StringRef rest = StringRef(spec).substr(eq + 1);
      SmallVector<StringRef> parts;
      rest.split(parts, 'x');
      for (StringRef part : parts) {
        int64_t d;
        if (part.getAsInteger(10, d) || d < 0) {
          ok = false;
          break;
        }
        dims.push_back(d);
      }
    }
    if (!ok) {
      error("--input-shape=" + spec +
            ": expected NAME=D0xD1x... with "
            "non-negative sizes (1x3x224x224)");
      return failure();
    }
    options.inputShapes[spec.substr(0, eq)] = dims;
  }
  for (const std::string &spec : import.constantInputs) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
      error("--constant-input=" + spec + ": expected NAME=FILE.npy");
      return failure();
    }
    options.constantInputs[spec.substr(0, eq)] = spec.substr(eq + 1);
  }
  int64_t before = errors;
  OwningOpRef<ModuleOp> module = importOnnx(*context, name, bytes, options);
  if (!module) {
    if (errors == before)
      error("cannot import the ONNX model", name);
    return failure();
  }
  if (failed(verify(*module))) {
    if (errors == before)
      error("the imported ONNX model is not valid", name);
    return failure();
  }
  return makeModel(std::move(module), name);
}

FailureOr<Model> Session::loadFile(const std::string &path,
                                   const ImportOptions &import) {
  struct stat st;
  bool stream =
      path == "-" || (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode));
  if (!stream) {
    std::string message;
    std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &message);
    if (!file) {
      error(message);
      return failure();
    }
    return loadBuffer(std::move(file), import);
  }
  // Standard input, a pipe or a device: read as it comes, stopping at the
  // first NUL byte of what is not MLIR bytecode (a binary file, /dev/zero)
  // and at the memory budget (an endless stream).
  const uint64_t cap = BufferAllocator::defaultLimit();
  size_t scanned = 0, nul = std::string::npos;
  auto limit = [&](std::string_view prefix) -> uint64_t {
    if ((prefix.size() >= 4 && prefix.substr(0, 4) == "ML\xefR") ||
        looksLikeOnnx(StringRef(prefix.data(), prefix.size())))
      return cap;
    if (nul == std::string::npos) {
      nul = prefix.find('\0', scanned);
      scanned = prefix.size();
    }
    return nul != std::string::npos ? nul : cap;
  };
  FileBytes bytes;
  std::string message;
  std::string name = path == "-" ? "<stdin>" : path;
  if (!readFile(path == "-" ? "/dev/stdin" : path, bytes, message, limit)) {
    error(message);
    return failure();
  }
  if (nul != std::string::npos) {
    error(name + ": not an MLIR model: byte " + std::to_string(nul) +
          " is NUL (a binary file or a device?)");
    return failure();
  }
  if (bytes.more) {
    error(name + ": the model is larger than the memory budget (" +
          std::to_string(cap >> 20) + " MiB)");
    return failure();
  }
  return loadBuffer(llvm::MemoryBuffer::getMemBufferCopy(bytes.view(), name),
                    import);
}

FailureOr<Model> Session::loadBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer,
                                     const ImportOptions &import) {
  renewContextIfIdle();
  ++loadsSinceRenewal;
  bytesSinceRenewal += buffer->getBufferSize();
  std::string name = buffer->getBufferIdentifier().str();
  if (isOnnx(name, buffer->getBuffer()))
    return loadOnnx(name, buffer->getBuffer(), import);
  if (!import.trainable.empty() || !import.frozen.empty())
    warning("--trainable and --frozen apply to ONNX models; " + name +
            " is MLIR, whose parameters are the arguments marked "
            "fusec.param");
  // torch-mlir's newer MLIR prints i1 hex literals with a byte per element
  // (text only: bytecode starts with "ML\xefR").
  std::optional<std::string> repacked;
  if (!buffer->getBuffer().starts_with("ML\xefR"))
    repacked = repackBooleanHexLiterals(buffer->getBuffer());
  if (repacked)
    buffer = llvm::MemoryBuffer::getMemBufferCopy(*repacked, name);
  // The parser reads its source manager's main (first) buffer, so each
  // model gets a manager of its own; the session's manager, which renders
  // diagnostics, gets a view of the same bytes.
  auto own = std::make_unique<llvm::SourceMgr>();
  llvm::MemoryBufferRef bytes = buffer->getMemBufferRef();
  own->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(bytes, /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  sources.push_back(std::move(own));
  int64_t before = errors;
  // A parser that fails without saying why (some of upstream's custom
  // parsers) still gets a diagnostic.
  auto silentFailure = [&](StringRef what) {
    if (errors == before)
      error(what.str(), name);
    return failure();
  };
  // Parse without verifying first: a few upstream TOSA verifiers crash on
  // inputs they should reject, so those are checked for beforehand.
  ParserConfig config(context.get(), /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(*sources.back(), config);
  if (!module)
    return silentFailure("cannot parse the model");
  if (failed(checkTosaBeforeVerification(*module)) || failed(verify(*module)))
    return silentFailure("the model is not valid");
  return makeModel(std::move(module), name);
}

Model::Model(OwningOpRef<ModuleOp> module, std::string name,
             std::shared_ptr<bool> session)
    : session(std::move(session)), module(std::move(module)),
      name(std::move(name)) {}

Model::~Model() {
  if (session && *session)
    (void)module.release();
}

FailureOr<func::FuncOp> Model::findEntry(StringRef entryName) {
  if (!entryName.empty()) {
    auto func = module->lookupSymbol<func::FuncOp>(entryName);
    if (!func)
      return module->emitError()
             << "no function named '" << entryName << "' in the module";
    // Running or compiling it reads its body.
    if (func.isExternal())
      return func.emitError()
             << "'" << entryName
             << "' is a declaration without a body: there is nothing to run "
                "or compile";
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module->getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() == 1)
    return candidates.front();
  InFlightDiagnostic diag = module->emitError();
  if (candidates.empty())
    return diag << "the module has no public function to run";
  diag << "the module has " << candidates.size()
       << " public functions; choose one with --entry=NAME:";
  for (func::FuncOp f : candidates)
    diag << " " << f.getSymName();
  return diag;
}
