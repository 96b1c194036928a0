// Models aimed at the kernel shapes of code generation, checked by the
// codegen-*.test tests like every other model of the test suite: vector
// loops with and without a scalar tail, broadcasts, index arithmetic,
// every dtype, row reductions shorter and longer than a block, column and
// middle-axis reductions, multi-output and hand-written fusions.

// Vectorised f32: 1031 = 257 * 4 + 3 elements, so a vector loop and a tail.
func.func @vector_tail(%a: tensor<1031xf32>, %b: tensor<1031xf32>) -> tensor<1031xf32> {
  %0 = fusec.mul %a, %b : tensor<1031xf32>
  %1 = fusec.tanh %0 : tensor<1031xf32>
  %2 = fusec.add %1, %a : tensor<1031xf32>
  return %2 : tensor<1031xf32>
}

// f16 and bf16 storage: 8 elements per 16-byte vector, with a tail.
func.func @vector_f16(%a: tensor<7x131xf16>, %b: tensor<7x131xf16>) -> tensor<7x131xf16> {
  %0 = fusec.sub %a, %b : tensor<7x131xf16>
  %1 = fusec.mul %0, %0 : tensor<7x131xf16>
  %2 = fusec.sigmoid %1 : tensor<7x131xf16>
  return %2 : tensor<7x131xf16>
}

func.func @vector_bf16(%a: tensor<1029xbf16>) -> tensor<1029xbf16> {
  %c = fusec.constant dense<0.5> : tensor<bf16>
  %0 = fusec.mul %a, %c : tensor<1029xbf16>, tensor<bf16>
  %1 = fusec.gelu %0 approximate = tanh : tensor<1029xbf16>
  return %1 : tensor<1029xbf16>
}

// Mixed widths: i64 in, f16 out (vectors sized by the widest element).
func.func @mixed_widths(%a: tensor<1000xi64>, %b: tensor<1000xf16>) -> (tensor<1000xf16>, tensor<1000xi32>) {
  %0 = fusec.cast %a : tensor<1000xi64> to tensor<1000xf16>
  %1 = fusec.add %0, %b : tensor<1000xf16>
  %2 = fusec.cast %a : tensor<1000xi64> to tensor<1000xi32>
  %3 = fusec.mul %2, %2 : tensor<1000xi32>
  return %1, %3 : tensor<1000xf16>, tensor<1000xi32>
}

// Integers and booleans.
func.func @integers(%a: tensor<64x33xi32>, %b: tensor<33xi32>) -> (tensor<64x33xi32>, tensor<64x33xi1>) {
  %0 = fusec.div %a, %b : tensor<64x33xi32>, tensor<33xi32>
  %1 = fusec.mul %0, %b : tensor<64x33xi32>, tensor<33xi32>
  %2 = fusec.abs %1 : tensor<64x33xi32>
  %3 = fusec.compare ge, %2, %a : tensor<64x33xi32>
  %4 = fusec.select %3, %2, %a : tensor<64x33xi1>, tensor<64x33xi32>
  return %4, %3 : tensor<64x33xi32>, tensor<64x33xi1>
}

func.func @booleans(%a: tensor<300xi1>, %b: tensor<300xi1>, %x: tensor<300xi64>) -> (tensor<300xi1>, tensor<300xi64>) {
  %0 = fusec.compare ne, %a, %b : tensor<300xi1>
  %1 = fusec.select %0, %x, %x : tensor<300xi1>, tensor<300xi64>
  %2 = fusec.neg %1 : tensor<300xi64>
  %3 = fusec.relu %2 : tensor<300xi64>
  return %0, %3 : tensor<300xi1>, tensor<300xi64>
}

// Logical operations fused with comparisons and a select (a mask).
func.func @logical(%a: tensor<12x25xi1>, %b: tensor<25xi1>, %x: tensor<12x25xf32>, %y: tensor<12x1xf32>) -> (tensor<12x25xi1>, tensor<12x25xf32>) {
  %gt = fusec.compare gt, %x, %y : tensor<12x25xf32>, tensor<12x1xf32>
  %and = fusec.and %a, %b : tensor<12x25xi1>, tensor<25xi1>
  %or = fusec.or %and, %gt : tensor<12x25xi1>
  %not = fusec.not %b : tensor<25xi1>
  %xor = fusec.xor %or, %not : tensor<12x25xi1>, tensor<25xi1>
  %zero = fusec.constant dense<0.0> : tensor<f32>
  %masked = fusec.select %xor, %x, %zero : tensor<12x25xi1>, tensor<12x25xf32>, tensor<f32>
  return %xor, %masked : tensor<12x25xi1>, tensor<12x25xf32>
}

// Broadcasts in every position, as index arithmetic.
func.func @broadcasts(%a: tensor<5x1x7xf32>, %b: tensor<6x1xf32>, %c: tensor<f32>) -> tensor<5x6x7xf32> {
  %0 = fusec.add %a, %b : tensor<5x1x7xf32>, tensor<6x1xf32>
  %1 = fusec.max %0, %c : tensor<5x6x7xf32>, tensor<f32>
  %2 = fusec.broadcast_to %b : tensor<6x1xf32> -> tensor<5x6x7xf32>
  %3 = fusec.div %1, %2 : tensor<5x6x7xf32>
  return %3 : tensor<5x6x7xf32>
}

// Transpose, slice with strides, concat and reshape in one kernel.
func.func @data_movement(%a: tensor<4x6x8xf32>, %b: tensor<8x3x4xf32>) -> tensor<8x9x4xf32> {
  %t = fusec.transpose %a, [2, 1, 0] : tensor<4x6x8xf32> -> tensor<8x6x4xf32>
  %s = fusec.slice %t [0, 0, 0] [8, 3, 4] [1, 2, 1] : tensor<8x6x4xf32> -> tensor<8x3x4xf32>
  %e = fusec.exp %s : tensor<8x3x4xf32>
  %c = fusec.concat %t, %e axis = 1 : tensor<8x6x4xf32>, tensor<8x3x4xf32> -> tensor<8x9x4xf32>
  %r = fusec.reshape %b : tensor<8x3x4xf32> -> tensor<8x12xf32>
  %r2 = fusec.reshape %r : tensor<8x12xf32> -> tensor<8x3x4xf32>
  %c2 = fusec.concat %r2, %r2, %r2 axis = 1 : tensor<8x3x4xf32>, tensor<8x3x4xf32>, tensor<8x3x4xf32> -> tensor<8x9x4xf32>
  %o = fusec.add %c, %c2 : tensor<8x9x4xf32>
  return %o : tensor<8x9x4xf32>
}

// Row reductions: shorter than a warp, several warps, longer than a block.
func.func @rows_short(%a: tensor<33x5xf32>) -> tensor<33x1xf32> {
  %0 = fusec.reduce_sum %a axes = [1] keep_dims : tensor<33x5xf32> -> tensor<33x1xf32>
  return %0 : tensor<33x1xf32>
}

func.func @rows_long(%a: tensor<3x1000xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = fusec.reduce_max %a axes = [1] : tensor<3x1000xf32> -> tensor<3xf32>
  %1 = fusec.reduce_min %a axes = [1] : tensor<3x1000xf32> -> tensor<3xf32>
  %2 = fusec.reduce_mean %a axes = [1] : tensor<3x1000xf32> -> tensor<3xf32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// Products: rows of 7 (f32 with an epilogue, i32 wrapping), a column
// product of f16 (accumulated in f64, rounded once).
func.func @products(%a: tensor<9x7xf32>, %i: tensor<5x6xi32>, %h: tensor<4x10xf16>) -> (tensor<9x1xf32>, tensor<5xi32>, tensor<10xf16>) {
  %p = fusec.reduce_prod %a axes = [1] keep_dims : tensor<9x7xf32> -> tensor<9x1xf32>
  %e = fusec.exp %p : tensor<9x1xf32>
  %pi = fusec.reduce_prod %i axes = [1] : tensor<5x6xi32> -> tensor<5xi32>
  %ph = fusec.reduce_prod %h axes = [0] : tensor<4x10xf16> -> tensor<10xf16>
  return %e, %pi, %ph : tensor<9x1xf32>, tensor<5xi32>, tensor<10xf16>
}

// Softmax over rows of 300 (an epilogue per element) in f16.
func.func @softmax_f16(%x: tensor<10x300xf16>) -> tensor<10x300xf16> {
  %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<10x300xf16> -> tensor<10x1xf16>
  %d = fusec.sub %x, %m : tensor<10x300xf16>, tensor<10x1xf16>
  %e = fusec.exp %d : tensor<10x300xf16>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<10x300xf16> -> tensor<10x1xf16>
  %o = fusec.div %e, %s : tensor<10x300xf16>, tensor<10x1xf16>
  return %o : tensor<10x300xf16>
}

// f64, as torch-mlir exports nn.LayerNorm: an f32 -> f64 cast, the mean
// and variance in f64, back to f32; and the f64 forms of every elementwise
// function, casts to and from every type, and f64 extrema.
func.func @layernorm_f64(%x: tensor<6x40xf32>, %g: tensor<40xf32>) -> tensor<6x40xf32> {
  %x64 = fusec.cast %x : tensor<6x40xf32> to tensor<6x40xf64>
  %mean = fusec.reduce_mean %x64 axes = [1] keep_dims : tensor<6x40xf64> -> tensor<6x1xf64>
  %c = fusec.sub %x64, %mean : tensor<6x40xf64>, tensor<6x1xf64>
  %sq = fusec.mul %c, %c : tensor<6x40xf64>
  %var = fusec.reduce_mean %sq axes = [1] keep_dims : tensor<6x40xf64> -> tensor<6x1xf64>
  %eps = fusec.constant dense<1.0e-5> : tensor<f64>
  %ve = fusec.add %var, %eps : tensor<6x1xf64>, tensor<f64>
  %r = fusec.rsqrt %ve : tensor<6x1xf64>
  %n = fusec.mul %c, %r : tensor<6x40xf64>, tensor<6x1xf64>
  %n32 = fusec.cast %n : tensor<6x40xf64> to tensor<6x40xf32>
  %o = fusec.mul %n32, %g : tensor<6x40xf32>, tensor<40xf32>
  return %o : tensor<6x40xf32>
}

func.func @elementwise_f64(%a: tensor<9x33xf64>, %b: tensor<33xf64>, %i: tensor<9x33xi64>) -> (tensor<9x33xf64>, tensor<9x33xf64>, tensor<9x33xf16>, tensor<9x33xbf16>, tensor<9x33xi32>, tensor<9x33xi1>, tensor<33xf64>, tensor<9xf64>) {
  %e = fusec.exp %a : tensor<9x33xf64>
  %l = fusec.log %e : tensor<9x33xf64>
  %t = fusec.tanh %a : tensor<9x33xf64>
  %s = fusec.sigmoid %t : tensor<9x33xf64>
  %g = fusec.gelu %s : tensor<9x33xf64>
  %gt = fusec.gelu %g approximate = tanh : tensor<9x33xf64>
  %q = fusec.sqrt %e : tensor<9x33xf64>
  %rq = fusec.reciprocal %q : tensor<9x33xf64>
  %er = fusec.erf %rq : tensor<9x33xf64>
  %ab = fusec.abs %b : tensor<33xf64>
  %p = fusec.pow %ab, %b : tensor<33xf64>
  %mx = fusec.max %er, %p : tensor<9x33xf64>, tensor<33xf64>
  %mn = fusec.min %mx, %gt : tensor<9x33xf64>
  %re = fusec.relu %l : tensor<9x33xf64>
  %ng = fusec.neg %re : tensor<9x33xf64>
  %dv = fusec.div %mn, %ng : tensor<9x33xf64>
  %fi = fusec.cast %i : tensor<9x33xi64> to tensor<9x33xf64>
  %sum = fusec.add %dv, %fi : tensor<9x33xf64>
  %h = fusec.cast %a : tensor<9x33xf64> to tensor<9x33xf16>
  %bf = fusec.cast %a : tensor<9x33xf64> to tensor<9x33xbf16>
  %k = fusec.constant dense<1.0e9> : tensor<f64>
  %big = fusec.mul %a, %k : tensor<9x33xf64>, tensor<f64>
  %ci = fusec.cast %big : tensor<9x33xf64> to tensor<9x33xi32>
  %cmp = fusec.compare lt, %a, %b : tensor<9x33xf64>, tensor<33xf64>
  %cmax = fusec.reduce_max %a axes = [0] : tensor<9x33xf64> -> tensor<33xf64>
  %rmin = fusec.reduce_min %a axes = [1] : tensor<9x33xf64> -> tensor<9xf64>
  return %sum, %l, %h, %bf, %ci, %cmp, %cmax, %rmin : tensor<9x33xf64>, tensor<9x33xf64>, tensor<9x33xf16>, tensor<9x33xbf16>, tensor<9x33xi32>, tensor<9x33xi1>, tensor<33xf64>, tensor<9xf64>
}

// Layer normalisation over the last two axes.
func.func @layernorm(%x: tensor<4x6x40xf32>, %g: tensor<40xf32>) -> tensor<4x6x40xf32> {
  %mean = fusec.reduce_mean %x axes = [1, 2] keep_dims : tensor<4x6x40xf32> -> tensor<4x1x1xf32>
  %c = fusec.sub %x, %mean : tensor<4x6x40xf32>, tensor<4x1x1xf32>
  %sq = fusec.mul %c, %c : tensor<4x6x40xf32>
  %var = fusec.reduce_mean %sq axes = [1, 2] keep_dims : tensor<4x6x40xf32> -> tensor<4x1x1xf32>
  %eps = fusec.constant dense<1.0e-5> : tensor<f32>
  %ve = fusec.add %var, %eps : tensor<4x1x1xf32>, tensor<f32>
  %r = fusec.rsqrt %ve : tensor<4x1x1xf32>
  %n = fusec.mul %c, %r : tensor<4x6x40xf32>, tensor<4x1x1xf32>
  %o = fusec.mul %n, %g : tensor<4x6x40xf32>, tensor<40xf32>
  return %o : tensor<4x6x40xf32>
}

// Column, middle-axis and all-axes reductions, in every reducible dtype.
func.func @columns(%a: tensor<37x19xf32>, %b: tensor<5x9x3xi32>, %c: tensor<6x4x5xbf16>, %d: tensor<3x7xi64>) -> (tensor<19xf32>, tensor<5x3xi32>, tensor<bf16>, tensor<7xi64>) {
  %e = fusec.exp %a : tensor<37x19xf32>
  %0 = fusec.reduce_sum %e axes = [0] : tensor<37x19xf32> -> tensor<19xf32>
  %1 = fusec.reduce_max %b axes = [1] : tensor<5x9x3xi32> -> tensor<5x3xi32>
  %2 = fusec.reduce_sum %c axes = [0, 1, 2] : tensor<6x4x5xbf16> -> tensor<bf16>
  %3 = fusec.reduce_sum %d axes = [0] : tensor<3x7xi64> -> tensor<7xi64>
  return %0, %1, %2, %3 : tensor<19xf32>, tensor<5x3xi32>, tensor<bf16>, tensor<7xi64>
}

// Hand-written fusions, as an embedder may give them: results of several
// sizes next to a reduction; a reduction read across rows (a transpose of
// its result), which code generation splits into one kernel per operation;
// two reductions in one fusion, split likewise.
func.func @handwritten(%a: tensor<8x16xf32>, %b: tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<4x4xf32>) {
  %r:4 = fusec.fusion row_reduction (%a, %b) : (tensor<8x16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<4x4xf32>) {
  ^bb0(%x: tensor<8x16xf32>, %y: tensor<16xf32>):
    %0 = fusec.add %x, %y : tensor<8x16xf32>, tensor<16xf32>
    %1 = fusec.reduce_sum %0 axes = [1] : tensor<8x16xf32> -> tensor<8xf32>
    %2 = fusec.neg %y : tensor<16xf32>
    %3 = fusec.reshape %2 : tensor<16xf32> -> tensor<4x4xf32>
    fusec.yield %0, %1, %2, %3 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<4x4xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<8x16xf32>, tensor<8xf32>, tensor<16xf32>, tensor<4x4xf32>
}

func.func @handwritten_split(%a: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %r:2 = fusec.fusion reduction (%a) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  ^bb0(%x: tensor<4x4xf32>):
    %m = fusec.reduce_max %x axes = [1] keep_dims : tensor<4x4xf32> -> tensor<4x1xf32>
    %t = fusec.transpose %m, [1, 0] : tensor<4x1xf32> -> tensor<1x4xf32>
    %d = fusec.sub %x, %t : tensor<4x4xf32>, tensor<1x4xf32>
    %s = fusec.reduce_sum %x axes = [0] : tensor<4x4xf32> -> tensor<4xf32>
    fusec.yield %d, %s : tensor<4x4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4xf32>
}

// A split inside a hand-written fusion: each piece at its offset.
func.func @handwritten_pieces(%a: tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x7xf32>) {
  %r:2 = fusec.fusion (%a) : (tensor<4x10xf32>) -> (tensor<4x3xf32>, tensor<4x7xf32>) {
  ^bb0(%x: tensor<4x10xf32>):
    %p:2 = fusec.split %x axis = 1 sizes = [3, 7] : tensor<4x10xf32> -> tensor<4x3xf32>, tensor<4x7xf32>
    %n = fusec.neg %p#1 : tensor<4x7xf32>
    fusec.yield %p#0, %n : tensor<4x3xf32>, tensor<4x7xf32>
  }
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<4x7xf32>
}

// Constants: a splat result and a table in a kernel; a matmul between.
func.func @constants(%a: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<100x100xf32>) {
  %w = fusec.constant dense<[[1.5, -2.0], [0.25, 3.0], [-1.0, 0.1], [2.0, 2.0]]> : tensor<4x2xf32>
  %m = fusec.matmul %a, %w : tensor<3x4xf32>, tensor<4x2xf32> -> tensor<3x2xf32>
  %k = fusec.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %o = fusec.add %m, %k : tensor<3x2xf32>, tensor<2xf32>
  %s = fusec.constant dense<7.0> : tensor<100x100xf32>
  return %o, %s : tensor<3x2xf32>, tensor<100x100xf32>
}

// Calls are inlined; identical bodies share one kernel.
func.func private @scale(%x: tensor<256xf32>) -> tensor<256xf32> {
  %c = fusec.constant dense<3.0> : tensor<f32>
  %0 = fusec.mul %x, %c : tensor<256xf32>, tensor<f32>
  %1 = fusec.sqrt %0 : tensor<256xf32>
  return %1 : tensor<256xf32>
}

func.func @calls(%a: tensor<256xf32>, %b: tensor<256xf32>) -> (tensor<256xf32>, tensor<256xf32>) {
  %0 = func.call @scale(%a) : (tensor<256xf32>) -> tensor<256xf32>
  %1 = func.call @scale(%b) : (tensor<256xf32>) -> tensor<256xf32>
  return %0, %1 : tensor<256xf32>, tensor<256xf32>
}

// Rounding (halves to even, signed zeros kept) and trigonometry.
func.func @rounding_trig(%x: tensor<64xf32>, %h: tensor<64xf16>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf16>) {
  %f = fusec.floor %x : tensor<64xf32>
  %c = fusec.ceil %x : tensor<64xf32>
  %r = fusec.round %x : tensor<64xf32>
  %t = fusec.trunc %x : tensor<64xf32>
  %a = fusec.add %f, %c : tensor<64xf32>
  %b = fusec.sub %r, %t : tensor<64xf32>
  %s = fusec.sin %x : tensor<64xf32>
  %k = fusec.cos %x : tensor<64xf32>
  %at = fusec.atan %k : tensor<64xf32>
  %sk = fusec.mul %s, %at : tensor<64xf32>
  %o = fusec.add %a, %b : tensor<64xf32>
  %hr = fusec.round %h : tensor<64xf16>
  return %o, %sk, %hr : tensor<64xf32>, tensor<64xf32>, tensor<64xf16>
}

// Vector lanes (emitLaneElementwise): outputs of one shape whose rows are
// a multiple of the vector width, inputs read as vectors (the bias row, the
// activations), once per thread (a per-row scale, a scalar) or lane by
// lane (a transposed input).
func.func @lanes_bias(%x: tensor<6x32xf32>, %bias: tensor<32xf32>, %scale: tensor<6x1xf32>, %t: tensor<32x6xf32>) -> (tensor<6x32xf32>, tensor<6x32xf32>) {
  %0 = fusec.add %x, %bias : tensor<6x32xf32>, tensor<32xf32>
  %1 = fusec.mul %0, %scale : tensor<6x32xf32>, tensor<6x1xf32>
  %2 = fusec.tanh %1 : tensor<6x32xf32>
  %tt = fusec.transpose %t, [1, 0] : tensor<32x6xf32> -> tensor<6x32xf32>
  %3 = fusec.sub %2, %tt : tensor<6x32xf32>
  return %2, %3 : tensor<6x32xf32>, tensor<6x32xf32>
}

// f16 streams: 8 lanes (16 bytes); an f32 bias makes the width 4.
func.func @lanes_f16(%x: tensor<4x64xf16>, %bias: tensor<64xf16>, %g: tensor<4x1x64xf16>) -> tensor<4x64xf16> {
  %0 = fusec.add %x, %bias : tensor<4x64xf16>, tensor<64xf16>
  %r = fusec.reshape %g : tensor<4x1x64xf16> -> tensor<4x64xf16>
  %1 = fusec.mul %0, %r : tensor<4x64xf16>
  %2 = fusec.sigmoid %1 : tensor<4x64xf16>
  return %2 : tensor<4x64xf16>
}
func.func @lanes_mixed(%x: tensor<4x64xf16>, %bias: tensor<64xf32>) -> tensor<4x64xf32> {
  %c = fusec.cast %x : tensor<4x64xf16> to tensor<4x64xf32>
  %0 = fusec.add %c, %bias : tensor<4x64xf32>, tensor<64xf32>
  return %0 : tensor<4x64xf32>
}

// Slices and split pieces along the row: aligned starts are vectors, a
// misaligned one (of another input) lane by lane.
func.func @lanes_slices(%x: tensor<3x40xf32>, %y: tensor<3x16xf32>, %z: tensor<3x40xf32>) -> (tensor<3x16xf32>, tensor<3x16xf32>) {
  %a = fusec.slice %x [0, 8] [3, 16] [1, 1] : tensor<3x40xf32> -> tensor<3x16xf32>
  %b = fusec.slice %z [0, 21] [3, 16] [1, 1] : tensor<3x40xf32> -> tensor<3x16xf32>
  %s:2 = fusec.split %x axis = 1 sizes = [24, 16] : tensor<3x40xf32> -> tensor<3x24xf32>, tensor<3x16xf32>
  %0 = fusec.add %a, %y : tensor<3x16xf32>
  %1 = fusec.mul %0, %b : tensor<3x16xf32>
  %2 = fusec.sub %1, %s#1 : tensor<3x16xf32>
  %3 = fusec.exp %2 : tensor<3x16xf32>
  return %2, %3 : tensor<3x16xf32>, tensor<3x16xf32>
}

// Row reductions in vector lanes: an f16 softmax (8 lanes, the bias row of
// the epilogue a vector too) and a reduction over the two innermost
// dimensions; one with a reshaped element output keeps scalar stores.
func.func @lanes_softmax_f16(%x: tensor<6x128xf16>, %b: tensor<128xf16>) -> tensor<6x128xf16> {
  %xb = fusec.add %x, %b : tensor<6x128xf16>, tensor<128xf16>
  %m = fusec.reduce_max %xb axes = [1] keep_dims : tensor<6x128xf16> -> tensor<6x1xf16>
  %d = fusec.sub %xb, %m : tensor<6x128xf16>, tensor<6x1xf16>
  %e = fusec.exp %d : tensor<6x128xf16>
  %s = fusec.reduce_sum %e axes = [1] keep_dims : tensor<6x128xf16> -> tensor<6x1xf16>
  %o = fusec.div %e, %s : tensor<6x128xf16>, tensor<6x1xf16>
  return %o : tensor<6x128xf16>
}
func.func @lanes_planes(%x: tensor<3x5x8x12xf32>) -> (tensor<3x5xf32>, tensor<3x5x96xf32>) {
  %s = fusec.reduce_sum %x axes = [2, 3] : tensor<3x5x8x12xf32> -> tensor<3x5xf32>
  %sq = fusec.mul %x, %x : tensor<3x5x8x12xf32>
  %r = fusec.reshape %sq : tensor<3x5x8x12xf32> -> tensor<3x5x96xf32>
  return %s, %r : tensor<3x5xf32>, tensor<3x5x96xf32>
}

// Column reductions sliced over a block: 32 outputs per block (fewer rounded
// up to a power of two), 8 or more threads per output combined in order;
// with a bias-gradient-like epilogue and an output of the input's size.
func.func @columns_sliced(%a: tensor<150x40xf32>, %b: tensor<70x3x5xi32>, %h: tensor<96x8xf16>) -> (tensor<40xf32>, tensor<150x40xf32>, tensor<3x5xi32>, tensor<8xf16>) {
  %e = fusec.exp %a : tensor<150x40xf32>
  %0 = fusec.reduce_sum %e axes = [0] : tensor<150x40xf32> -> tensor<40xf32>
  %n = fusec.neg %0 : tensor<40xf32>
  %1 = fusec.reduce_max %b axes = [0] : tensor<70x3x5xi32> -> tensor<3x5xi32>
  %2 = fusec.reduce_mean %h axes = [0] : tensor<96x8xf16> -> tensor<8xf16>
  return %n, %e, %1, %2 : tensor<40xf32>, tensor<150x40xf32>, tensor<3x5xi32>, tensor<8xf16>
}

// Rows of a few elements packed several to a warp, rows of a few hundred a
// warp each, rows past the last of a warp idle in its shuffles.
func.func @rows_packed(%a: tensor<37x6xf32>, %b: tensor<5x300xf32>, %c: tensor<9x2x8xf16>) -> (tensor<37xf32>, tensor<5x300xf32>, tensor<9x2xf16>) {
  %0 = fusec.reduce_max %a axes = [1] : tensor<37x6xf32> -> tensor<37xf32>
  %s = fusec.reduce_sum %b axes = [1] keep_dims : tensor<5x300xf32> -> tensor<5x1xf32>
  %1 = fusec.div %b, %s : tensor<5x300xf32>, tensor<5x1xf32>
  %2 = fusec.reduce_sum %c axes = [2] : tensor<9x2x8xf16> -> tensor<9x2xf16>
  return %0, %1, %2 : tensor<37xf32>, tensor<5x300xf32>, tensor<9x2xf16>
}

// One value yielded twice (copies of a duplicated producer that landed in
// one kernel, each needed outside): both outputs are stored, each vector
// declared once.
func.func @yielded_twice(%a: tensor<64xf32>, %b: tensor<8x6xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<8x6xf32>, tensor<8x6xf32>) {
  %0:4 = fusec.fusion (%a, %b) : (tensor<64xf32>, tensor<8x6xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<8x6xf32>, tensor<8x6xf32>) {
  ^bb0(%x: tensor<64xf32>, %y: tensor<8x6xf32>):
    %e = fusec.exp %x : tensor<64xf32>
    %n = fusec.neg %y : tensor<8x6xf32>
    fusec.yield %e, %e, %n, %n : tensor<64xf32>, tensor<64xf32>, tensor<8x6xf32>, tensor<8x6xf32>
  }
  return %0#0, %0#1, %0#2, %0#3 : tensor<64xf32>, tensor<64xf32>, tensor<8x6xf32>, tensor<8x6xf32>
}

// Transposes that move the innermost dimension, through shared-memory tiles
// (emitTransposeTiles): extents that are not multiples of the 32-element
// tile; a bias and a second output; f16 with an input read directly; a
// rotation of three dimensions (the third a batch), i32 with an i1 output;
// the transposed value computed in the kernel (bf16).
func.func @transpose_tiles(%x: tensor<67x45xf32>, %b: tensor<67xf32>) -> (tensor<45x67xf32>, tensor<45x67xf32>) {
  %t = fusec.transpose %x, [1, 0] : tensor<67x45xf32> -> tensor<45x67xf32>
  %0 = fusec.add %t, %b : tensor<45x67xf32>, tensor<67xf32>
  %1 = fusec.tanh %0 : tensor<45x67xf32>
  return %1, %t : tensor<45x67xf32>, tensor<45x67xf32>
}
func.func @transpose_tiles_f16(%x: tensor<3x40x33xf16>, %y: tensor<3x33x40xf16>) -> tensor<3x33x40xf16> {
  %t = fusec.transpose %x, [0, 2, 1] : tensor<3x40x33xf16> -> tensor<3x33x40xf16>
  %0 = fusec.mul %t, %y : tensor<3x33x40xf16>
  return %0 : tensor<3x33x40xf16>
}
func.func @transpose_tiles_rotate(%x: tensor<36x20x24xi32>, %y: tensor<20x24x36xi32>) -> (tensor<20x24x36xi32>, tensor<20x24x36xi1>) {
  %t = fusec.transpose %x, [1, 2, 0] : tensor<36x20x24xi32> -> tensor<20x24x36xi32>
  %0 = fusec.sub %t, %y : tensor<20x24x36xi32>
  %1 = fusec.compare gt, %t, %y : tensor<20x24x36xi32>, tensor<20x24x36xi32>
  return %0, %1 : tensor<20x24x36xi32>, tensor<20x24x36xi1>
}
func.func @transpose_tiles_computed(%x: tensor<48x64xbf16>, %s: tensor<bf16>) -> tensor<64x48xbf16> {
  %e = fusec.exp %x : tensor<48x64xbf16>
  %m = fusec.mul %e, %s : tensor<48x64xbf16>, tensor<bf16>
  %t = fusec.transpose %m, [1, 0] : tensor<48x64xbf16> -> tensor<64x48xbf16>
  %n = fusec.neg %t : tensor<64x48xbf16>
  return %n : tensor<64x48xbf16>
}

// Lane widths (lane-widths.test): an f32 -> f16 cast takes 8 lanes (16 bytes
// of f16, the f32 side in two 16-byte accesses); read through a slice that
// starts 4 elements into a row it takes 4 (the slice is contiguous at 4
// lanes, not at 8).
func.func @lanes_cast_wide(%a: tensor<16x40xf32>, %b: tensor<40xf16>) -> tensor<16x40xf16> {
  %c = fusec.cast %a : tensor<16x40xf32> to tensor<16x40xf16>
  %0 = fusec.add %c, %b : tensor<16x40xf16>, tensor<40xf16>
  return %0 : tensor<16x40xf16>
}
func.func @lanes_cast_slice(%a: tensor<16x44xf32>, %b: tensor<16x40xf16>) -> tensor<16x40xf16> {
  %s = fusec.slice %a [0, 4] [16, 40] [1, 1] : tensor<16x44xf32> -> tensor<16x40xf32>
  %c = fusec.cast %s : tensor<16x40xf32> to tensor<16x40xf16>
  %0 = fusec.add %c, %b : tensor<16x40xf16>, tensor<16x40xf16>
  return %0 : tensor<16x40xf16>
}

// -----

// Dropout: Philox numbers drawn by position inside the kernel (any key,
// odd sizes, lanes of 16-byte vectors and a tail), the mask applied to f32
// and f16 values, and a row reduction over dropped-out values.
func.func @dropout_f32(%x: tensor<37x64xf32>, %key: tensor<2xi32>) -> (tensor<37x64xf32>, tensor<37x64xi1>) {
  %u = fusec.random_uniform %key stream = 5 : tensor<2xi32> -> tensor<37x64xf32>
  %p = fusec.constant dense<0.25> : tensor<f32>
  %keep = fusec.compare ge, %u, %p : tensor<37x64xf32>, tensor<f32>
  %s = fusec.constant dense<1.33333337> : tensor<f32>
  %scaled = fusec.mul %x, %s : tensor<37x64xf32>, tensor<f32>
  %z = fusec.constant dense<0.0> : tensor<f32>
  %y = fusec.select %keep, %scaled, %z : tensor<37x64xi1>, tensor<37x64xf32>, tensor<f32>
  return %y, %keep : tensor<37x64xf32>, tensor<37x64xi1>
}

func.func @dropout_f16_odd(%x: tensor<3x5x77xf16>, %key: tensor<2xi32>) -> tensor<3x5x77xf16> {
  %u = fusec.random_uniform %key stream = 4294967295 : tensor<2xi32> -> tensor<3x5x77xf32>
  %p = fusec.constant dense<0.5> : tensor<f32>
  %keep = fusec.compare ge, %u, %p : tensor<3x5x77xf32>, tensor<f32>
  %s = fusec.constant dense<2.0> : tensor<f16>
  %scaled = fusec.mul %x, %s : tensor<3x5x77xf16>, tensor<f16>
  %z = fusec.constant dense<0.0> : tensor<f16>
  %y = fusec.select %keep, %scaled, %z : tensor<3x5x77xi1>, tensor<3x5x77xf16>, tensor<f16>
  return %y : tensor<3x5x77xf16>
}

func.func @random_rows(%key: tensor<2xi32>) -> (tensor<9xf32>, tensor<9x1000xf32>) {
  %u = fusec.random_uniform %key stream = 0 : tensor<2xi32> -> tensor<9x1000xf32>
  %s = fusec.reduce_sum %u axes = [1] : tensor<9x1000xf32> -> tensor<9xf32>
  return %s, %u : tensor<9xf32>, tensor<9x1000xf32>
}
