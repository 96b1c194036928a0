fusec-executable 5
entry "n"
arch "sm_90"
memory arena 256 lower-bound 256 peak-step 0 workspace 0
buffers 3
buffer 0 input 0 f32 [64] "arg0"
buffer 1 temp f32 [64] offset 0 "t0"
buffer 2 alias 1 f32 [8,8] "t1"
kernels 1
kernel 0 loop inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [64,64] work 64 row-length 0 vector-width 4 in-place [0,0] ptx 0 "k"
steps 1
step 0 launch kernel 0 grid 1 block 256 args [0,1]
inputs [0]
outputs [2]
ptx-texts 1
ptx 0 offset 0 length 1
cubins 0
constants 0
cpu-sources 0
payload 1
x