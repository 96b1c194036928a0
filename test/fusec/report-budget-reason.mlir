// The reachability budget: a multi-output merge whose cycle check runs out
// of visits (--fusion-reachability-budget, 4096 by default) is refused, as
// documented, and the reason says so instead of claiming a cycle that does
// not exist.
//
// %p = exp(%a) is needed by a long chain (through a broadcast_to, so the
// chain's kernels iterate over another shape and cannot take %p) and by the
// add at the end, whose kernel could take %p as an extra output: the chain
// never leads back into it. The check only searches the kernels between the
// two, so with the default budget the merge is made for 100 and for 5000
// chained operations; with a budget of 2 visits it is refused.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import sys; n = int(sys.argv[1]); print('func.func @budget(%%a: tensor<64x64xf32>, %%b: tensor<64x64xf32>) -> (tensor<2x64x64xf32>, tensor<64x64xf32>) {'); print('  %%p = fusec.exp %%a : tensor<64x64xf32>'); print('  %%o = fusec.broadcast_to %%p : tensor<64x64xf32> -> tensor<2x64x64xf32>'); print('  %%v0 = fusec.neg %%o : tensor<2x64x64xf32>'); [print('  %%v{} = fusec.neg %%v{} : tensor<2x64x64xf32>'.format(i, i - 1)) for i in range(1, n)]; print('  %%c = fusec.add %%p, %%b : tensor<64x64xf32>'); print('  return %%v{}, %%c : tensor<2x64x64xf32>, tensor<64x64xf32>'.format(n - 1)); print('}')" 100 > %t/short.mlir
// RUN: %python -c "import sys; n = int(sys.argv[1]); print('func.func @budget(%%a: tensor<64x64xf32>, %%b: tensor<64x64xf32>) -> (tensor<2x64x64xf32>, tensor<64x64xf32>) {'); print('  %%p = fusec.exp %%a : tensor<64x64xf32>'); print('  %%o = fusec.broadcast_to %%p : tensor<64x64xf32> -> tensor<2x64x64xf32>'); print('  %%v0 = fusec.neg %%o : tensor<2x64x64xf32>'); [print('  %%v{} = fusec.neg %%v{} : tensor<2x64x64xf32>'.format(i, i - 1)) for i in range(1, n)]; print('  %%c = fusec.add %%p, %%b : tensor<64x64xf32>'); print('  return %%v{}, %%c : tensor<2x64x64xf32>, tensor<64x64xf32>'.format(n - 1)); print('}')" 5000 > %t/long.mlir
// RUN: fusec %t/short.mlir --emit=report | FileCheck %s --check-prefix=SHORT
// RUN: fusec %t/long.mlir --emit=report | FileCheck %s --check-prefix=LONG
// RUN: fusec %t/long.mlir --emit=report --fusion-reachability-budget=2 | FileCheck %s --check-prefix=BUDGET
//
// SHORT: func @budget: 103 kernels without fusion, 2 with fusion (2 fusions)
// In program order: the add's kernel, which computes %p, before the chain
// that reads it.
// SHORT-NEXT: fusion #0 (loop, 2 ops): fusec.exp@2:8, fusec.add@104:8{{$}}
// SHORT-NEXT: bytes in 32768, out 32768,
// SHORT-NEXT: fusion #1 (loop, 101 ops): fusec.broadcast_to@3:8, fusec.neg@4:9,
//
// LONG: func @budget: 5003 kernels without fusion,
// LONG: fusec.exp@2:8 -> fusec.broadcast_to@3:8: its kernel writes it to memory for its other users (a multi-output fusion with 'fusec.add' at 5004:8)
// LONG-NOT: cycle
// BUDGET: fusec.exp@2:8 -> fusec.add@5004:8: the cycle check for a multi-output fusion with 'fusec.add' at 5004:8 exceeded its budget of 2 visits
// BUDGET-NOT: cycle
