// RUN: fusec %s --emit=dot | FileCheck %s
// The graph names arguments as the model does (fusec.name, as ONNX import
// and training steps set it), and by number where it does not.
// CHECK: a0 [label="pixels\ntensor<4xf32>", shape=ellipse];
// CHECK-NEXT: a1 [label="%arg1\ntensor<4xf32>", shape=ellipse];
// CHECK-NEXT: a2 [label="a \"quoted\" name\ntensor<4xf32>", shape=ellipse];
func.func @names(%x: tensor<4xf32> {fusec.name = "pixels"}, %y: tensor<4xf32>, %z: tensor<4xf32> {fusec.name = "a \"quoted\" name"}) -> tensor<4xf32> {
  %0 = fusec.add %x, %y : tensor<4xf32>
  %1 = fusec.mul %0, %z : tensor<4xf32>
  return %1 : tensor<4xf32>
}
