fusec-executable 5
entry "conv"
arch "sm_90"
memory arena 1024 lower-bound 1012 peak-step 0 workspace 0
buffers 5
buffer 0 input 0 f32 [1,5,4,2] "x"
buffer 1 input 1 f32 [18,3] "w"
buffer 2 input 2 f32 [3] "bias"
buffer 3 temp f32 [8,18] offset 0 "windows"
buffer 4 temp f32 [8,3] offset 768 "y"
kernels 1
kernel 0 loop inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [40,144] work 144 row-length 0 vector-width 1 in-place [] ptx 0 "gather"
steps 1
step 0 conv input 0 window [3,3] strides [2,1] dilations [1,1] padding [1,0,1,1] gather kernel 0 grid 1 block 256 args [0,3] product a 3 b 1 c 4 transpose-a 0 transpose-b 0 epilogue relu_bias bias 2
inputs [0,1,2]
outputs [8]
ptx-texts 1
ptx 0 offset 0 length 13
cubins 0
constants 0
cpu-sources 0
payload 13
.version 8.4
