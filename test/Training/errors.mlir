// Bad training options and functions are errors at a location, exit 1.
// RUN: not fusec %s --train=nosuch 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not fusec %s --train=loss --optimizer=rmsprop 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not fusec %s --train=loss --loss-scale=static:-1 2>&1 | FileCheck %s --check-prefix=SCALE
// RUN: not fusec %s --train=loss --loss-scale=sometimes 2>&1 | FileCheck %s --check-prefix=SCALE2
// RUN: not fusec %s --train=loss --loss-scale-backoff=2 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not fusec %s --train=loss --beta2=1 --optimizer=adam 2>&1 | FileCheck %s --check-prefix=BETA
// RUN: not fusec %s --train=nograd 2>&1 | FileCheck %s --check-prefix=NOPARAM
// RUN: not fusec %s --train=loss --run --input=%s 2>&1 | FileCheck %s --check-prefix=INPUTS

// NAME: fusec: error: --train=nosuch: there is no function named 'nosuch' in {{.*}}errors.mlir
// OPT: fusec: error: invalid value 'rmsprop' for --optimizer: expected sgd|adam
// SCALE: error: train step: loss scale 'static:-1' is not dynamic, static:VALUE (a normal positive f32) or off
// SCALE2: error: train step: loss scale 'sometimes' is not dynamic
// BACKOFF: error: train step: the backoff factor must be in (0, 1]
// BETA: error: train step: beta1 and beta2 must be in [0, 1)
// NOPARAM: errors.mlir:[[@LINE+7]]:1: error: cannot differentiate 'nograd': it has no 'fusec.param' argument
// INPUTS: error: 'loss' takes 2 argument(s) but 1 --input file(s) were given
func.func @loss(%w: tensor<2xf32> {fusec.param}, %x: tensor<2xf32>) -> tensor<f32> {
  %0 = fusec.mul %x, %w : tensor<2xf32>
  %1 = fusec.reduce_sum %0 axes = [0] : tensor<2xf32> -> tensor<f32>
  return %1 : tensor<f32>
}
func.func @nograd(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = fusec.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// Options are used as f32 constants: values that round to an infinity or
// to 0 there are errors, not steps that are all skipped or all NaN.
// RUN: not fusec %s --train=loss --loss-scale=static:1e-50 2>&1 | FileCheck %s --check-prefix=TINY
// RUN: not fusec %s --train=loss --loss-scale-init=1e39 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not fusec %s --train=loss --learning-rate=1e39 2>&1 | FileCheck %s --check-prefix=LR
// TINY: error: train step: loss scale 'static:1e-50' is not dynamic, static:VALUE (a normal positive f32) or off
// HUGE: error: train step: the initial loss scale must be an f32 between 2^-126 and its largest finite value
// LR: error: train step: the learning rate must be a finite f32 and not negative

// An unusable output directory is an error before the first step, not
// after the last one.
// RUN: %python %S/../fusec/Inputs/npytool.py gen %t.w.npy "np.array([1.0, 2.0], np.float32)"
// RUN: not fusec %s --train=loss --run --steps=3 --input=%t.w.npy --input=%t.w.npy \
// RUN:   --output-dir=%s/out > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=OUTDIR < %t.err
// RUN: count 0 < %t.out
// OUTDIR: error: cannot create directory '{{.*}}errors.mlir/out'
