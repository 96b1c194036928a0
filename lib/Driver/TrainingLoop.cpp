//===- TrainingLoop.cpp - Training over a dataset -------------------------===//

#include "fusec/Driver/TrainingLoop.h"
#include "fusec/Driver/Checkpoint.h"
#include "fusec/Support/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

using namespace fusec;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// NAME=FILE; false when there is no '=' or either side is empty.
bool splitSpec(const std::string &spec, std::string &name, std::string &file) {
  size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
    return false;
  name = spec.substr(0, eq);
  file = spec.substr(eq + 1);
  return true;
}

/// The user argument called `name`, or -1.
int64_t argumentNamed(const TrainStepSignature &sig, const std::string &name) {
  for (int64_t i = 0; i < sig.userArguments; ++i)
    if (sig.argNames[size_t(i)] == name)
      return i;
  return -1;
}

std::string userArgumentList(const TrainStepSignature &sig) {
  std::string s;
  for (int64_t i = 0; i < sig.userArguments; ++i)
    s += (i ? ", " : "") + sig.argNames[size_t(i)];
  return s;
}

std::string typeText(DType dtype, const Shape &shape) {
  return std::string(dtypeName(dtype)) + "[" + formatShape(shape) + "]";
}

/// Why a file's dtype does not fit an argument's, with a hint for the
/// float64 NumPy writes by default.
std::string dtypeMismatch(DType file, DType arg) {
  std::string s = "holds " + std::string(dtypeName(file)) +
                  ", the argument is " + std::string(dtypeName(arg));
  if (file == DType::F64 && arg != DType::F64)
    s += " (NumPy writes float64 by default: save x.astype(np.float32))";
  else if (arg == DType::I64 && (file == DType::I32 || file == DType::I1))
    s += " (class labels are int64, as PyTorch's: save labels.astype("
         "np.int64))";
  else if (arg == DType::F32 && file != DType::F32)
    s += " (save it with .astype(np.float32))";
  return s;
}

} // namespace

std::optional<Dataset> fusec::bindData(const TrainStepSignature &sig,
                                       const std::vector<std::string> &specs,
                                       int64_t &batchSize, const char *what,
                                       std::string &error) {
  Dataset data;
  std::vector<bool> bound(size_t(sig.userArguments), false);
  for (const std::string &spec : specs) {
    std::string name, file;
    if (!splitSpec(spec, name, file)) {
      error = std::string(what) + "=" + spec + ": expected NAME=FILE.npy";
      return std::nullopt;
    }
    int64_t arg = argumentNamed(sig, name);
    if (arg < 0) {
      error = std::string(what) + "=" + spec + ": no argument named '" + name +
              "' (the loss function's arguments: " + userArgumentList(sig) +
              ")";
      return std::nullopt;
    }
    if (bound[size_t(arg)]) {
      error = std::string(what) + ": argument '" + name + "' is bound twice";
      return std::nullopt;
    }
    bound[size_t(arg)] = true;
    if (!isDataArgument(sig, arg)) {
      bool param = llvm::is_contained(sig.params, arg);
      error = std::string(what) + "=" + spec + ": '" + name + "' is " +
              (param ? "a trained parameter (fusec.param)"
                     : "model state (" + sig.argRoles[size_t(arg)] + ")") +
              ", not data; give its initial value with --param=" + name +
              "=FILE.npy";
      return std::nullopt;
    }
    std::unique_ptr<MappedNpy> array = MappedNpy::open(file, error);
    if (!array) {
      error = std::string(what) + " '" + name + "': " + error;
      return std::nullopt;
    }
    DType argType = sig.argDTypes[size_t(arg)];
    const Shape &argShape = sig.argShapes[size_t(arg)];
    std::string prefix = std::string(what) + " '" + name + "': " + file + " (" +
                         typeText(array->dtype(), array->shape()) + ") ";
    if (array->dtype() != argType) {
      error = prefix + dtypeMismatch(array->dtype(), argType);
      return std::nullopt;
    }
    Shape sample(array->shape().begin() + 1, array->shape().end());
    Shape argSample = argShape.empty()
                          ? Shape()
                          : Shape(argShape.begin() + 1, argShape.end());
    if (argShape.empty() || sample != argSample) {
      error = prefix + "does not hold samples of argument '" + name + "' " +
              typeText(argType, argShape) +
              ": its shape after the leading sample dimension must be the "
              "argument's after its batch dimension";
      return std::nullopt;
    }
    if (batchSize <= 0 && !argShape.empty())
      batchSize = argShape.front();
    if (argShape.front() != batchSize) {
      error = prefix + "feeds a batch dimension of " +
              std::to_string(argShape.front()) + " but --batch-size is " +
              std::to_string(batchSize) +
              " (an ONNX model's dynamic batch is bound by --batch-size; "
              "other models are compiled for one batch size)";
      return std::nullopt;
    }
    if (!data.empty() && array->shape().front() != data.samples()) {
      error = prefix + "has " + std::to_string(array->shape().front()) +
              " samples, but " + data.getBindings().front().array->path() +
              " has " + std::to_string(data.samples());
      return std::nullopt;
    }
    data.add({name, arg, std::move(array)});
  }
  if (!data.empty() && data.samples() < batchSize) {
    error = std::string(what) + ": " + std::to_string(data.samples()) +
            " samples are fewer than one batch of " + std::to_string(batchSize);
    return std::nullopt;
  }
  return data;
}

namespace {
/// Glorot (Xavier) uniform: U(-l, l) with l = sqrt(6 / (fan_in + fan_out)),
/// fans as Keras computes them (the last dimension is the outputs, the one
/// before the inputs, the others the receptive field).
bool glorotUniform(Buffer &b, uint64_t seed, int64_t index,
                   std::string &error) {
  const Shape &s = b.shape();
  if (s.size() < 2)
    return true; // Biases and scalars: zeros.
  if (b.dtype() != DType::F32 && b.dtype() != DType::F64) {
    error = "--init=glorot-uniform initialises f32 and f64 parameters; give "
            "this one a file with --param";
    return false;
  }
  double receptive = 1;
  for (size_t d = 0; d + 2 < s.size(); ++d)
    receptive *= double(s[d]);
  double fanIn = receptive * double(s[s.size() - 2]);
  double fanOut = receptive * double(s.back());
  double limit = fanIn + fanOut > 0 ? std::sqrt(6.0 / (fanIn + fanOut)) : 0;
  SplitMix64 rng{seed * 0x9e3779b97f4a7c15ull +
                 uint64_t(index) * 0x632be59bd9b4e019ull};
  for (int64_t i = 0; i < b.numElements(); ++i) {
    double v = (2 * rng.unit() - 1) * limit;
    if (b.dtype() == DType::F32)
      b.as<float>()[i] = float(v);
    else
      b.as<double>()[i] = v;
  }
  return true;
}
} // namespace

std::optional<std::vector<Buffer>>
fusec::initialArguments(const TrainStepSignature &sig,
                        const TrainLoopOptions &options, const Dataset &data,
                        BufferAllocator &allocator, std::string &error) {
  if (!options.init.empty() && options.init != "glorot-uniform" &&
      options.init != "zeros") {
    error = "--init=" + options.init +
            ": unknown initialiser (glorot-uniform or zeros)";
    return std::nullopt;
  }
  std::map<int64_t, std::string> files;
  for (const std::string &spec : options.params) {
    std::string name, file;
    if (!splitSpec(spec, name, file)) {
      error = "--param=" + spec + ": expected NAME=FILE.npy";
      return std::nullopt;
    }
    int64_t arg = argumentNamed(sig, name);
    if (arg < 0) {
      error = "--param=" + spec + ": no argument named '" + name +
              "' (the loss function's arguments: " + userArgumentList(sig) +
              ")";
      return std::nullopt;
    }
    if (!files.emplace(arg, file).second) {
      error = "--param: argument '" + name + "' is given twice";
      return std::nullopt;
    }
  }
  std::vector<Buffer> args;
  for (int64_t i = 0; i < sig.userArguments; ++i) {
    const std::string &name = sig.argNames[size_t(i)];
    DType dtype = sig.argDTypes[size_t(i)];
    const Shape &shape = sig.argShapes[size_t(i)];
    bool isData = false;
    for (const DataBinding &b : data.getBindings())
      isData |= b.argument == i;
    if (isData && files.count(i)) {
      error = "argument '" + name + "' is given both --data and --param";
      return std::nullopt;
    }
    if (auto it = files.find(i); it != files.end()) {
      Buffer value = readNpy(it->second, error, &allocator);
      if (!value) {
        error = "--param '" + name + "': " + error;
        return std::nullopt;
      }
      if (value.dtype() != dtype || value.shape() != shape) {
        error = "--param '" + name + "': " + it->second + " (" +
                typeText(value.dtype(), value.shape()) +
                ") does not match the argument, " + typeText(dtype, shape) +
                (value.dtype() != dtype
                     ? " (" + dtypeMismatch(value.dtype(), dtype) + ")"
                     : "");
        return std::nullopt;
      }
      args.push_back(std::move(value));
      continue;
    }
    bool isParam = llvm::is_contained(sig.params, i);
    if (const Buffer &initial = sig.initialValues[size_t(i)];
        initial && !isData) {
      // The model's value (an imported weight), copied: the step's updates
      // never write into the module's constants.
      Buffer value = allocator.allocate(dtype, shape, error);
      if (!value)
        return std::nullopt;
      std::memcpy(value.data(), initial.data(), initial.sizeInBytes());
      args.push_back(std::move(value));
      continue;
    }
    if (!isData && !(isParam && !options.init.empty())) {
      error = "argument '" + name + "' (" + typeText(dtype, shape) +
              ") has no value: give --param=" + name + "=FILE.npy" +
              (isParam ? " or --init=glorot-uniform"
                       : " or --data=" + name + "=FILE.npy");
      return std::nullopt;
    }
    Buffer value = allocator.allocate(dtype, shape, error);
    if (!value)
      return std::nullopt;
    if (isParam && options.init == "glorot-uniform" &&
        !glorotUniform(value, uint64_t(options.seed), i, error)) {
      error = "argument '" + name + "': " + error;
      return std::nullopt;
    }
    args.push_back(std::move(value));
  }
  seedModelState(sig, args, options.seed);
  return args;
}

//===----------------------------------------------------------------------===//
// Progress and the step log
//===----------------------------------------------------------------------===//

namespace {

/// The figures of a run of steps (an epoch, a validation pass): sums of
/// the loss and of each metric over the steps that counted.
struct Averages {
  double loss = 0;
  std::vector<double> metrics;
  int64_t counted = 0, skipped = 0, steps = 0;
  void add(double l, const std::vector<double> &m) {
    loss += l;
    if (metrics.empty())
      metrics.assign(m.size(), 0);
    for (size_t i = 0; i < m.size(); ++i)
      metrics[i] += m[i];
    ++counted;
  }
  double mean(double sum) const {
    return counted ? sum / double(counted) : NAN;
  }
};

class StepLog {
public:
  bool open(const std::string &path, const std::vector<std::string> &metrics,
            std::string &error) {
    if (path.empty())
      return true;
    llvm::StringRef p(path);
    jsonl = p.ends_with(".jsonl");
    if (!jsonl && !p.ends_with(".csv")) {
      error = "--log=" + path + ": the file name ends in .csv or .jsonl";
      return false;
    }
    std::error_code ec;
    file = std::make_unique<llvm::raw_fd_ostream>(path, ec,
                                                  llvm::sys::fs::OF_Text);
    if (ec) {
      error = "--log=" + path + ": " + ec.message();
      file.reset();
      return false;
    }
    names = metrics;
    if (!jsonl) {
      *file << "step,epoch,loss";
      for (const std::string &m : names)
        *file << "," << m;
      *file << ",scale,skipped,seconds\n";
    }
    return true;
  }
  void step(int64_t step, int64_t epoch, double loss,
            const std::vector<double> &metrics, std::optional<double> scale,
            bool skipped, double seconds) {
    if (!file)
      return;
    auto num = [this](double v) {
      std::string s;
      llvm::raw_string_ostream(s) << llvm::format("%.9g", v);
      return std::isfinite(v) || !jsonl ? s : std::string("null");
    };
    if (jsonl) {
      *file << "{\"step\": " << step << ", \"epoch\": " << epoch
            << ", \"loss\": " << num(loss);
      for (size_t i = 0; i < names.size(); ++i)
        *file << ", \"" << names[i] << "\": " << num(metrics[i]);
      *file << ", \"scale\": " << (scale ? num(*scale) : "null")
            << ", \"skipped\": " << (skipped ? "true" : "false")
            << ", \"seconds\": " << num(seconds) << "}\n";
    } else {
      *file << step << "," << epoch << "," << num(loss);
      for (size_t i = 0; i < names.size(); ++i)
        *file << "," << num(metrics[i]);
      *file << "," << (scale ? num(*scale) : "") << "," << (skipped ? 1 : 0)
            << "," << num(seconds) << "\n";
    }
  }
  bool close(std::string &error) {
    if (!file)
      return true;
    file->close();
    if (file->has_error()) {
      error = "--log: " + file->error().message();
      file->clear_error();
      return false;
    }
    return true;
  }

private:
  bool jsonl = false;
  std::unique_ptr<llvm::raw_fd_ostream> file;
  std::vector<std::string> names;
};

std::string figures(const Averages &a, const std::vector<std::string> &names,
                    const char *prefix) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << prefix << "loss " << llvm::format("%.4g", a.mean(a.loss));
  for (size_t i = 0; i < names.size() && i < a.metrics.size(); ++i)
    os << ", " << prefix << names[i] << " "
       << llvm::format("%.4g", a.mean(a.metrics[i]));
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Staging
//===----------------------------------------------------------------------===//

namespace {

/// Batches of at least this many bytes are prepared on the staging thread.
constexpr size_t kStagingMinBytes = 64 * 1024;

/// One job at a time, run on a thread that lives as long as the loop (when
/// `threaded`), else when its result is taken.
template <typename T> class Stager {
public:
  explicit Stager(bool threaded) {
    if (threaded)
      worker = std::thread([this] { loop(); });
  }
  ~Stager() {
    if (!worker.joinable())
      return;
    {
      std::lock_guard<std::mutex> lock(mutex);
      stopping = true;
    }
    changed.notify_all();
    worker.join();
  }
  void submit(std::function<T()> job) {
    if (!worker.joinable()) {
      pending = std::move(job);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      pending = std::move(job);
      done = false;
    }
    changed.notify_all();
  }
  T take() {
    if (!worker.joinable())
      return pending();
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [this] { return done; });
    return std::move(result);
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      changed.wait(lock, [this] { return stopping || pending; });
      if (stopping)
        return;
      std::function<T()> job = std::move(pending);
      pending = nullptr;
      lock.unlock();
      T value = job();
      lock.lock();
      result = std::move(value);
      done = true;
      changed.notify_all();
    }
  }

  std::thread worker;
  std::mutex mutex;
  std::condition_variable changed;
  std::function<T()> pending;
  T result;
  bool done = false, stopping = false;
};

} // namespace

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

std::optional<int64_t> fusec::fit(const TrainLoopOptions &o, FitContext &ctx,
                                  std::string &error) {
  const TrainStepSignature &sig = ctx.signature;
  const Dataset &data = ctx.data;
  int64_t batch = o.batchSize;
  int64_t samples = data.samples();
  int64_t perEpoch = samples / batch;
  if (o.epochs > 0 && o.steps >= 0) {
    error = "--epochs and --steps both give the length of the run; give one";
    return std::nullopt;
  }
  int64_t total =
      o.steps >= 0 ? o.steps : (o.epochs > 0 ? o.epochs : 1) * perEpoch;
  int64_t epochs = (total + perEpoch - 1) / perEpoch;

  // Metrics: the step's results that are one-element results of the loss
  // function (others are listed as not averaged).
  std::vector<std::pair<size_t, std::string>> metrics; // step result, name
  for (size_t r = 0; r < sig.metricOf.size(); ++r) {
    if (sig.metricOf[r] < 0)
      continue;
    const std::string &name = sig.lossResultNames[size_t(sig.metricOf[r])];
    if (sig.resultElements[r] != 1) {
      if (!o.quiet)
        ctx.out << "result '" << name << "' of the loss function has "
                << sig.resultElements[r]
                << " elements: it is not a metric (metrics are results of "
                   "one element) and is not reported\n";
      continue;
    }
    metrics.emplace_back(r, name);
  }
  std::vector<std::string> metricNames;
  for (auto &m : metrics)
    metricNames.push_back(m.second);

  // Resume: the state arguments and the counters of the checkpoint.
  std::vector<int64_t> saved; // The arguments a checkpoint holds.
  for (size_t r = 0; r < sig.updates.size(); ++r)
    if (sig.updates[r] >= 0)
      saved.push_back(sig.updates[r]);
  int64_t start = 0;
  if (!o.resume.empty()) {
    Checkpoint c;
    if (!readCheckpoint(o.resume, c, ctx.allocator, error))
      return std::nullopt;
    auto differs = [&](const char *what, int64_t was, int64_t now) {
      error = "--resume=" + o.resume + ": the checkpoint was taken with " +
              what + " " + std::to_string(was) + ", this run has " +
              std::to_string(now) + " (a resumed run repeats the first one's " +
              "data order)";
      return std::nullopt;
    };
    if (c.batchSize != batch)
      return differs("--batch-size", c.batchSize, batch);
    if (c.samples != samples)
      return differs("a sample count of", c.samples, samples);
    if (c.shuffle != o.shuffle)
      return differs("--shuffle", c.shuffle, o.shuffle);
    if (c.seed != uint64_t(o.seed))
      return differs("--seed", int64_t(c.seed), o.seed);
    std::map<std::string, Buffer> byName(c.tensors.begin(), c.tensors.end());
    for (int64_t k : saved) {
      const std::string &name = sig.argNames[size_t(k)];
      auto it = byName.find(name);
      if (it == byName.end()) {
        error = "--resume=" + o.resume + ": the checkpoint has no '" + name +
                "' (was it written by another model or optimizer?)";
        return std::nullopt;
      }
      if (it->second.dtype() != sig.argDTypes[size_t(k)] ||
          it->second.shape() != sig.argShapes[size_t(k)]) {
        error = "--resume=" + o.resume + ": '" + name + "' is " +
                typeText(it->second.dtype(), it->second.shape()) +
                " in the checkpoint, " +
                typeText(sig.argDTypes[size_t(k)], sig.argShapes[size_t(k)]) +
                " in this step";
        return std::nullopt;
      }
      ctx.runner.setArgument(k, it->second);
    }
    start = c.step;
    if (!o.quiet)
      ctx.out << "resumed from " << o.resume << " at step " << start << "\n";
  }

  StepLog log;
  if (!log.open(o.log, metricNames, error))
    return std::nullopt;
  if (!o.quiet && samples % batch)
    ctx.out << "each epoch drops the last " << samples % batch << " of "
            << samples << " samples (a partial batch of --batch-size " << batch
            << ")\n";

  std::vector<bool> wanted(sig.updates.size(), false);
  wanted[size_t(sig.lossResult)] = true;
  for (int64_t r : {sig.skippedResult, sig.scaleResult})
    if (r >= 0)
      wanted[size_t(r)] = true;
  for (auto &m : metrics)
    wanted[m.first] = true;
  int64_t scaleArg = sig.scaleResult >= 0 ? sig.updates[sig.scaleResult] : -1;
  std::optional<double> scale;
  if (scaleArg >= 0) {
    std::optional<Buffer> initial = ctx.runner.argument(scaleArg, error);
    if (!initial)
      return std::nullopt;
    scale = initial->getAsDouble(0);
  }

  // Batches: those of step k, prepared on a second thread during step k-1.
  std::pair<int64_t, std::vector<int64_t>> cachedOrder(-1, {});
  auto orderOf = [&](int64_t epoch) -> const std::vector<int64_t> & {
    if (cachedOrder.first != epoch)
      cachedOrder = {epoch,
                     epochOrder(samples, o.shuffle, uint64_t(o.seed), epoch)};
    return cachedOrder.second;
  };
  struct Prepared {
    std::vector<Buffer> buffers;
    std::string error;
  };
  auto prepare = [&data, &ctx, batch](const std::vector<int64_t> &indices) {
    Prepared p;
    for (size_t b = 0; b < data.getBindings().size(); ++b) {
      Buffer buf = data.batch(b, indices, 0, batch, ctx.allocator, p.error);
      if (!buf) {
        p.buffers.clear();
        return p;
      }
      p.buffers.push_back(std::move(buf));
    }
    return p;
  };
  // Small batches are copied inline: handing them to the thread costs more
  // than the copy.
  size_t batchBytes = 0;
  for (const DataBinding &b : data.getBindings())
    batchBytes += b.array->rowBytes() * size_t(batch);
  Stager<Prepared> stager(o.staging && batchBytes >= kStagingMinBytes);
  auto launch = [&](int64_t k) {
    const std::vector<int64_t> &order = orderOf(k / perEpoch);
    auto first = order.begin() + (k % perEpoch) * batch;
    stager.submit(
        [prepare, indices = std::vector<int64_t>(first, first + batch)] {
          return prepare(indices);
        });
  };

  auto checkpoint = [&](int64_t step) -> bool {
    Checkpoint c;
    c.step = step;
    c.seed = uint64_t(o.seed);
    c.shuffle = o.shuffle;
    c.batchSize = batch;
    c.samples = samples;
    for (int64_t k : saved) {
      std::optional<Buffer> value = ctx.runner.argument(k, error);
      if (!value)
        return false;
      c.tensors.emplace_back(sig.argNames[size_t(k)], std::move(*value));
    }
    return writeCheckpoint(o.checkpointDir, c, error);
  };

  // Validation: the loss function on each full batch of the validation
  // data with the current parameters, no update.
  auto validate = [&](Averages &v) -> bool {
    std::vector<Buffer> args;
    for (int64_t i = 0; i < sig.userArguments; ++i) {
      std::optional<Buffer> value = ctx.runner.argument(i, error);
      if (!value)
        return false;
      args.push_back(std::move(*value));
    }
    int64_t vSamples = ctx.validation.samples();
    std::vector<int64_t> order = epochOrder(vSamples, false, 0, 0);
    for (int64_t first = 0; first + batch <= vSamples; first += batch) {
      for (size_t b = 0; b < ctx.validation.getBindings().size(); ++b) {
        Buffer buf =
            ctx.validation.batch(b, order, first, batch, ctx.allocator, error);
        if (!buf)
          return false;
        args[size_t(ctx.validation.getBindings()[b].argument)] = std::move(buf);
      }
      std::optional<std::vector<Buffer>> results = ctx.evaluate(args, error);
      if (!results)
        return false;
      std::vector<double> m;
      for (auto &metric : metrics)
        m.push_back(
            (*results)[size_t(sig.metricOf[metric.first])].getAsDouble(0));
      v.add((*results)[0].getAsDouble(0), m);
    }
    return true;
  };

  Averages epochFigures;
  Clock::time_point epochStart = Clock::now(), runStart = Clock::now();
  Clock::time_point lastDrawn = Clock::time_point();
  if (start < total)
    launch(start);
  int64_t lastCheckpoint = -1;
  for (int64_t k = start; k < total; ++k) {
    int64_t epoch = k / perEpoch, inEpoch = k % perEpoch;
    if (inEpoch == 0 || k == start) {
      epochFigures = Averages();
      epochStart = Clock::now();
    }
    Prepared batchNow = stager.take();
    if (batchNow.buffers.empty()) {
      error = batchNow.error;
      return std::nullopt;
    }
    if (k + 1 < total)
      launch(k + 1);
    for (size_t b = 0; b < data.getBindings().size(); ++b)
      ctx.runner.setArgument(data.getBindings()[b].argument,
                             std::move(batchNow.buffers[b]));
    Clock::time_point stepStart = Clock::now();
    std::optional<std::vector<Buffer>> results = ctx.runner.step(wanted, error);
    if (!results)
      return std::nullopt;
    double loss = (*results)[size_t(sig.lossResult)].getAsDouble(0);
    std::vector<double> m;
    for (auto &metric : metrics)
      m.push_back((*results)[metric.first].getAsDouble(0));
    bool skipped = sig.skippedResult >= 0 &&
                   (*results)[size_t(sig.skippedResult)].getAsDouble(0) != 0;
    std::optional<double> usedScale = scale;
    if (sig.scaleResult >= 0)
      scale = (*results)[size_t(sig.scaleResult)].getAsDouble(0);
    ++epochFigures.steps;
    if (skipped)
      ++epochFigures.skipped;
    else
      epochFigures.add(loss, m);
    log.step(k + 1, epoch + 1, loss, m, usedScale, skipped,
             secondsSince(stepStart));

    bool epochEnd = inEpoch == perEpoch - 1 || k + 1 == total;
    double elapsed = secondsSince(epochStart);
    double rate = elapsed > 0 ? double(epochFigures.steps) / elapsed : 0;
    auto status = [&](bool final) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << "epoch " << epoch + 1 << "/" << epochs << ": ";
      if (!final) {
        int64_t done = inEpoch + 1, width = 20;
        int64_t filled = done * width / perEpoch;
        os << done << "/" << perEpoch << " ["
           << std::string(size_t(filled), '=')
           << std::string(size_t(width - filled), '.') << "] ";
      } else {
        os << epochFigures.steps << " steps, ";
      }
      os << figures(epochFigures, metricNames, "");
      if (scale)
        os << ", scale " << llvm::format("%g", *scale);
      if (sig.skippedResult >= 0)
        os << ", " << epochFigures.skipped << " skipped";
      // Two significant digits below one step per second (a large model
      // on the interpreter), else one decimal.
      os << ", " << llvm::format(rate < 1 ? "%.2g" : "%.1f", rate)
         << " steps/s";
      if (!final && rate > 0)
        os << ", ETA "
           << llvm::format("%.0f", double(perEpoch - inEpoch - 1) / rate)
           << " s";
      return s;
    };
    // At most ten rewrites of the line a second.
    if (!o.quiet && ctx.interactive && !epochEnd &&
        secondsSince(lastDrawn) >= 0.1) {
      ctx.out << "\r" << status(false) << "\x1b[K";
      ctx.out.flush();
      lastDrawn = Clock::now();
    }
    if (!o.checkpointDir.empty() && o.checkpointEvery > 0 &&
        (k + 1) % o.checkpointEvery == 0) {
      if (!checkpoint(k + 1))
        return std::nullopt;
      lastCheckpoint = k + 1;
    }
    if (epochEnd) {
      std::string line = status(true);
      if (!ctx.validation.empty()) {
        Averages v;
        if (!validate(v))
          return std::nullopt;
        line += ", " + figures(v, metricNames, "val_");
      }
      if (!o.quiet)
        ctx.out << (ctx.interactive ? "\r" : "") << line
                << (ctx.interactive ? "\x1b[K" : "") << "\n";
      ctx.out.flush();
    }
  }
  if (!o.checkpointDir.empty() && lastCheckpoint != total && !checkpoint(total))
    return std::nullopt;
  if (!log.close(error))
    return std::nullopt;
  if (!o.quiet)
    ctx.out << total - start << " steps in "
            << llvm::format("%.2f", secondsSince(runStart)) << " s\n";
  return total;
}
