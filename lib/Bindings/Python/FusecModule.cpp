//===- FusecModule.cpp - The fusec Python package's compiler part ---------===//
//
// `fusec._fusec`: models loaded and compiled through the driver library
// (Session, CompiledModel), arrays in and out without a copy of the
// results. The Pythonic surface (fusec.load, CompileError, keyword options)
// is fusec/__init__.py; errors cross as (value, diagnostics) pairs that it
// turns into exceptions. The GIL is released while compiling and running.
//
//===----------------------------------------------------------------------===//

#include "Arrays.h"
#include "fusec/Conversion/OnnxTrainedWeights.h"
#include "fusec/Driver/CompiledModel.h"
#include "fusec/Driver/Session.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

namespace nb = nanobind;
using namespace fusec;
using namespace fusec::python;

namespace {

/// The diagnostics of a session as (severity, location, message, rendered).
using PyDiagnostic =
    std::tuple<std::string, std::string, std::string, std::string>;

std::vector<PyDiagnostic> take(Session &session) {
  std::vector<PyDiagnostic> out;
  for (const Diagnostic &d : session.takeDiagnostics()) {
    const char *severity =
        d.severity == Diagnostic::Severity::Error     ? "error"
        : d.severity == Diagnostic::Severity::Warning ? "warning"
        : d.severity == Diagnostic::Severity::Note    ? "note"
                                                      : "remark";
    out.emplace_back(severity, d.location, d.message, d.rendered);
  }
  return out;
}

/// A loaded model with the session (MLIR context, diagnostics) it lives in.
struct PyModel {
  std::shared_ptr<Session> session;
  std::optional<Model> model;
};

/// A compiled model; keeps its session alive.
struct PyExecutable {
  std::shared_ptr<Session> session;
  std::unique_ptr<CompiledModel> compiled;
  /// One call at a time: the interpreter and the session's diagnostics are
  /// not shared between threads (the GIL is released while it runs).
  std::mutex mutex;
};

using LoadResult =
    std::tuple<std::optional<PyModel>, std::vector<PyDiagnostic>>;

LoadResult load(const std::string &name, nb::bytes data, bool isPath,
                const std::vector<std::string> &options) {
  auto session = std::make_shared<Session>();
  Invocation invocation;
  std::string error;
  if (!parseInvocationOptions(options, invocation, error)) {
    session->error(error);
    return {std::nullopt, take(*session)};
  }
  std::string bytes(data.c_str(), data.size());
  mlir::FailureOr<Model> model = mlir::failure();
  {
    nb::gil_scoped_release release;
    model = isPath ? session->loadFile(name, invocation.import)
                   : session->loadBuffer(
                         llvm::MemoryBuffer::getMemBufferCopy(bytes, name),
                         invocation.import);
  }
  if (failed(model))
    return {std::nullopt, take(*session)};
  PyModel py;
  py.session = session;
  py.model.emplace(std::move(*model));
  return {std::move(py), take(*session)};
}

std::tuple<std::optional<std::string>, std::vector<PyDiagnostic>>
report(PyModel &m, const std::vector<std::string> &options) {
  Invocation invocation;
  std::string error;
  if (!parseInvocationOptions(options, invocation, error)) {
    m.session->error(error);
    return {std::nullopt, take(*m.session)};
  }
  mlir::FailureOr<std::string> text = mlir::failure();
  {
    nb::gil_scoped_release release;
    text = reportModel(*m.session, *m.model, invocation);
  }
  if (failed(text))
    return {std::nullopt, take(*m.session)};
  return {std::move(*text), take(*m.session)};
}

std::tuple<std::unique_ptr<PyExecutable>, std::vector<PyDiagnostic>>
compile(PyModel &m, const std::vector<std::string> &options) {
  Invocation invocation;
  std::string error;
  if (!parseInvocationOptions(options, invocation, error)) {
    m.session->error(error);
    return {nullptr, take(*m.session)};
  }
  // Compiling consumes a module: each compile gets a copy.
  Model copy(mlir::OwningOpRef<mlir::ModuleOp>(m.model->getModule().clone()),
             m.model->getName());
  mlir::FailureOr<std::unique_ptr<CompiledModel>> compiled = mlir::failure();
  {
    nb::gil_scoped_release release;
    compiled = CompiledModel::compile(*m.session, std::move(copy), invocation);
  }
  if (failed(compiled))
    return {nullptr, take(*m.session)};
  auto exe = std::make_unique<PyExecutable>();
  exe->session = m.session;
  exe->compiled = std::move(*compiled);
  return {std::move(exe), take(*m.session)};
}

std::tuple<std::optional<std::vector<nb::object>>, std::vector<PyDiagnostic>>
run(PyExecutable &exe, std::vector<Array> arrays) {
  const std::vector<TensorInfo> &infos = exe.compiled->arguments();
  std::vector<Buffer> buffers;
  for (size_t i = 0; i < arrays.size(); ++i) {
    std::string name =
        i < infos.size() ? infos[i].name : "#" + std::to_string(i);
    std::string error;
    Buffer b = toBuffer(arrays[i], name, error);
    if (!b) {
      exe.session->error(error);
      return {std::nullopt, take(*exe.session)};
    }
    buffers.push_back(std::move(b));
  }
  std::optional<std::vector<Buffer>> results;
  std::string error;
  nb::gil_scoped_release release;
  std::lock_guard<std::mutex> lock(exe.mutex);
  results = exe.compiled->run(buffers, error);
  nb::gil_scoped_acquire acquire;
  if (!results) {
    if (!error.empty())
      exe.session->error(error);
    return {std::nullopt, take(*exe.session)};
  }
  std::vector<nb::object> out;
  for (Buffer &r : *results)
    out.push_back(toArray(std::move(r)));
  return {std::move(out), take(*exe.session)};
}

nb::list tensorInfos(const std::vector<TensorInfo> &infos) {
  nb::list list;
  for (const TensorInfo &t : infos)
    list.append(nb::make_tuple(t.name, std::string(dtypeName(t.dtype)),
                               nb::tuple(nb::cast(t.shape))));
  return list;
}

/// Progress lines of the training loop, written to a Python callable
/// (sys.stdout.write) with the GIL taken for each write.
class PyStream final : public llvm::raw_ostream {
public:
  PyStream(nb::object write, bool terminal)
      : write(std::move(write)), terminal(terminal) {
    SetUnbuffered();
  }
  ~PyStream() override { flush(); }
  bool is_displayed() const override { return terminal; }

private:
  void write_impl(const char *data, size_t size) override {
    nb::gil_scoped_acquire gil;
    try {
      write(nb::str(data, size));
    } catch (nb::python_error &e) {
      e.discard_as_unraisable("fusec: writing progress");
    }
    position += size;
  }
  uint64_t current_pos() const override { return position; }
  nb::object write;
  bool terminal;
  uint64_t position = 0;
};

std::tuple<bool, std::vector<PyDiagnostic>>
fit(PyExecutable &exe, const std::vector<std::string> &options,
    nb::object write, bool terminal) {
  bool ok;
  {
    PyStream out(std::move(write), terminal);
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(exe.mutex);
    ok = succeeded(exe.compiled->fit(options, out));
    nb::gil_scoped_acquire acquire;
    out.flush();
  }
  return {ok, take(*exe.session)};
}

/// The .fsx artifact (as bytes) or the kernels' CUDA C++ of `exe`.
std::tuple<std::optional<nb::bytes>, std::vector<PyDiagnostic>>
artifact(PyExecutable &exe, bool cuda) {
  mlir::FailureOr<std::string> out = mlir::failure();
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(exe.mutex);
    out = cuda ? exe.compiled->cudaSource() : exe.compiled->artifact();
  }
  if (failed(out))
    return {std::nullopt, take(*exe.session)};
  return {nb::bytes(out->data(), out->size()), take(*exe.session)};
}

/// The calling convention of a training step (Driver/Training.h) as a
/// dict, or None for other functions.
nb::object trainStep(PyExecutable &self) {
  const TrainStepSignature *sig = self.compiled->trainStep();
  if (!sig)
    return nb::none();
  nb::dict d;
  d["user_arguments"] = sig->userArguments;
  d["argument_names"] = sig->argNames;
  d["params"] = sig->params;
  nb::list state;
  for (const TrainStepSignature::State &s : sig->state)
    state.append(nb::make_tuple(std::string(dtypeName(s.dtype)),
                                nb::tuple(nb::cast(s.shape)), s.initial, s.role,
                                s.of));
  d["state"] = state;
  d["model_state"] = sig->modelState;
  d["argument_roles"] = sig->argRoles;
  d["trained"] = trainedArguments(*sig);
  // The values the model gives its arguments (copies: the step must not
  // write into the module's constants), None where it gives none.
  nb::list initial;
  for (const Buffer &b : sig->initialValues) {
    if (!b) {
      initial.append(nb::none());
      continue;
    }
    Buffer copy = Buffer::allocate(b.dtype(), b.shape());
    std::memcpy(copy.data(), b.data(), b.sizeInBytes());
    initial.append(toArray(std::move(copy)));
  }
  d["initial_values"] = initial;
  d["updates"] = sig->updates;
  d["metric_of"] = sig->metricOf;
  d["loss_result_names"] = sig->lossResultNames;
  d["loss"] = sig->lossResult;
  d["scale"] = sig->scaleResult;
  d["skipped"] = sig->skippedResult;
  return d;
}

/// The ONNX model `data` with the initializers named in `values` replaced
/// (OnnxTrainedWeights.h), as bytes.
std::tuple<std::optional<nb::bytes>, std::string>
replaceInitializers(nb::bytes data, const std::vector<std::string> &names,
                    std::vector<Array> arrays) {
  std::map<std::string, Buffer> values;
  std::string error;
  for (size_t i = 0; i < names.size() && i < arrays.size(); ++i) {
    Buffer b = toBuffer(arrays[i], names[i], error);
    if (!b)
      return {std::nullopt, error};
    values[names[i]] = std::move(b);
  }
  std::string out;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = replaceOnnxInitializers(std::string_view(data.c_str(), data.size()),
                                 values, out, error);
  }
  if (!ok)
    return {std::nullopt, error};
  return {nb::bytes(out.data(), out.size()), ""};
}

} // namespace

NB_MODULE(_fusec, m) {
  m.doc() = "fusec's compiler: load, report, compile and run models";
  nb::class_<PyModel>(m, "Model").def_prop_ro("name", [](PyModel &self) {
    return self.model->getName();
  });
  nb::class_<PyExecutable>(m, "Executable")
      .def_prop_ro("arguments",
                   [](PyExecutable &self) {
                     return tensorInfos(self.compiled->arguments());
                   })
      .def_prop_ro("results",
                   [](PyExecutable &self) {
                     return tensorInfos(self.compiled->results());
                   })
      .def_prop_ro("device",
                   [](PyExecutable &self) { return self.compiled->device(); })
      .def_prop_ro("train_step", &trainStep);
  m.def("load", &load, nb::arg("name"), nb::arg("data"), nb::arg("is_path"),
        nb::arg("options"));
  m.def("report", &report, nb::arg("model"), nb::arg("options"));
  m.def("compile", &compile, nb::arg("model"), nb::arg("options"));
  m.def("run", &run, nb::arg("executable"), nb::arg("arrays"));
  m.def("artifact", &artifact, nb::arg("executable"), nb::arg("cuda"));
  m.def("fit", &fit, nb::arg("executable"), nb::arg("options"),
        nb::arg("write"), nb::arg("terminal"));
  m.def("replace_onnx_initializers", &replaceInitializers, nb::arg("model"),
        nb::arg("names"), nb::arg("arrays"));
}
