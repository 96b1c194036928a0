fusec-executable 5
entry "classify"
arch "sm_90"
memory arena 1536 lower-bound 1536 peak-step 2 workspace 1024
buffers 11
buffer 0 input 0 f32 [8,16] "arg0"
buffer 1 input 1 f32 [16,32] "arg1"
buffer 2 input 2 f32 [32] "arg2"
buffer 3 input 3 f32 [32,10] "arg3"
buffer 4 input 4 f32 [10] "arg4"
buffer 5 temp f32 [8,32] offset 0 "t0"
buffer 6 temp f32 [8,32] offset 0 "t1"
buffer 7 temp f32 [8,10] offset 1024 "t2"
buffer 8 temp f32 [8,1] offset 0 "t3"
buffer 9 temp f32 [8,10] offset 256 "t4"
buffer 10 temp i32 [8] offset 768 "t5"
kernels 4
kernel 0 loop inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [256,256] work 256 row-length 0 vector-width 4 in-place [0,0] ptx 0 "fusec_f6c7a8272e809be6"
kernel 1 row_reduction inputs 1 outputs 1 param-dtypes [f32,f32] param-elements [80,8] work 8 row-length 10 vector-width 1 in-place [] ptx 0 "fusec_a237ae8d7de78907"
kernel 2 row_reduction inputs 2 outputs 1 param-dtypes [f32,f32,f32] param-elements [80,8,80] work 8 row-length 10 vector-width 1 in-place [] ptx 0 "fusec_7caab4a52067b800"
kernel 3 row_reduction inputs 2 outputs 1 param-dtypes [f32,f32,i32] param-elements [80,8,8] work 8 row-length 10 vector-width 1 in-place [] ptx 1 "fusec_567dd26d1b6da47e"
steps 6
step 0 matmul a 0 b 1 c 5 transpose-a 0 transpose-b 0 epilogue bias bias 2
step 1 launch kernel 0 grid 1 block 256 args [5,6]
step 2 matmul a 6 b 3 c 7 transpose-a 0 transpose-b 0 epilogue bias bias 4
step 3 launch kernel 1 grid 1 block 256 args [7,8]
step 4 launch kernel 2 grid 1 block 256 args [7,8,9]
step 5 launch kernel 3 grid 1 block 256 args [7,8,10]
inputs [0,1,2,3,4]
outputs [9,10]
ptx-texts 2
ptx 0 offset 0 length 1
ptx 1 offset 1 length 1
cubins 0
constants 0
cpu-sources 0
payload 2
xy