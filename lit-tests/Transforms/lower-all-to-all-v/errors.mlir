// Every collective the pass cannot lower is a located error; the pass
// reports each one of the run, then fails, and prints no IR (exit 1).
// RUN: ccl-opt %s --split-input-file --verify-diagnostics -p 'builtin.module(ccl-lower-all-to-all-v)' -o /dev/null
// RUN: mlir-opt --load-dialect-plugin=%ccl_plugin %s --split-input-file -o /dev/null
// Without --verify-diagnostics: exit 1, nothing but the split markers on
// stdout, the 27 errors at their ops (column 3), none internal.
// RUN: not ccl-opt %s --split-input-file -p 'builtin.module(ccl-lower-all-to-all-v)' > %t.out 2> %t.err
// RUN: not grep -v '^// -\{5\}$' %t.out
// RUN: grep -c 'errors.mlir:[0-9]*:3: error: ' %t.err | FileCheck %s --check-prefix=COUNT
// RUN: not grep -i 'internal error\|panicked' %t.err
// COUNT: {{^27$}}

// No signal operand: there is nothing to synchronise on.
func.func @no_signal(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' has no signal operand: lowering synchronises on a memref<P x S x i32, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32
  return
}

// -----

// Not admitted: a launch width only known at run time has no launch_width.
func.func @not_admitted(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                        %sig: memref<4x4xi32, #ccl.window>, %b: i32) {
  // expected-error @+1 {{'ccl.all_to_all_v' has no admitted launch_width: run ccl-admit-launch-width on a constant number of blocks first}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @dynamic_shape(%d: memref<?xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                         %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' operand send has a dynamic shape or layout (memref<?xf32, #ccl.window>): lowering needs static shapes}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<?xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<?xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// A strided layout cannot be viewed as one flat run of rows.
func.func @dynamic_layout(%d: memref<8xf32, #ccl.window>, %s: memref<8xf32, strided<[2]>, #ccl.window>,
                          %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' operand send has a dynamic shape or layout (memref<8xf32, strided<[2]>, #ccl.window>): lowering needs static shapes}}
  ccl.all_to_all_v %s, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, strided<[2]>, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @unranked(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %u: memref<*xi32>,
                    %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' operand recv_counts must be a ranked memref, got memref<*xi32>}}
  ccl.all_to_all_v %d, %c, %d, %u, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<*xi32>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// P is the length of send_counts: it must have one dimension.
func.func @counts_shape(%d: memref<8xf32, #ccl.window>, %c: memref<2x2xi32, #ccl.window>,
                        %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send_counts must be one-dimensional (P counts), got memref<2x2xi32, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<2x2xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<2x2xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// Counts are integers the kernel clamps and adds: not floats, not i1.
func.func @float_counts(%d: memref<8xf32, #ccl.window>, %c: memref<4xf32, #ccl.window>,
                        %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send_counts must hold integer counts (a signless integer wider than i1, or index), got memref<4xf32, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xf32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xf32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @bool_counts(%d: memref<8xf32, #ccl.window>, %c: memref<4xi1, #ccl.window>,
                       %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send_counts must hold integer counts (a signless integer wider than i1, or index), got memref<4xi1, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi1, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi1, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @recv_counts_shape(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %rc: memref<8xi32>,
                             %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' recv_counts must have the shape and element type of send_counts (4 x i32), got memref<8xi32>}}
  ccl.all_to_all_v %d, %c, %d, %rc, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<8xi32>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// The snapshot writes a peer's count into recv_counts as it is.
func.func @recv_counts_type(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>, %rc: memref<4xi64>,
                            %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' recv_counts must have the shape and element type of send_counts (4 x i32), got memref<4xi64>}}
  ccl.all_to_all_v %d, %c, %d, %rc, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi64>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// Peers read send_counts remotely in the snapshot.
func.func @counts_not_window(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32>,
                             %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send_counts must be window-bound: peers read it remotely}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32>, memref<8xf32, #ccl.window>, memref<4xi32>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @no_ranks(%d: memref<0xf32, #ccl.window>, %c: memref<0xi32, #ccl.window>,
                    %sig: memref<0x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send_counts holds no counts: lowering needs at least one rank}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<0xf32, #ccl.window>, memref<0xi32, #ccl.window>, memref<0xf32, #ccl.window>, memref<0xi32, #ccl.window>, i32, memref<0x4xi32, #ccl.window>
  return
}

// -----

func.func @scalar_recv(%d: memref<f32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                       %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' recv must have at least one dimension}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<f32, #ccl.window>, memref<4xi32, #ccl.window>, memref<f32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @send_recv_shape(%s: memref<16xf32, #ccl.window>, %r: memref<8xf32, #ccl.window>,
                           %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send and recv must have the same shape and element type, got memref<16xf32, #ccl.window> and memref<8xf32, #ccl.window>}}
  ccl.all_to_all_v %s, %c, %r, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<16xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @send_recv_element(%s: memref<8xf16, #ccl.window>, %r: memref<8xf32, #ccl.window>,
                             %c: memref<4xi32, #ccl.window>, %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' send and recv must have the same shape and element type, got memref<8xf16, #ccl.window> and memref<8xf32, #ccl.window>}}
  ccl.all_to_all_v %s, %c, %r, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf16, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// Element offsets are indices: a buffer whose element count overflows i64
// has none (the pass used to panic on the overflow).
func.func @too_many_elements(%d: memref<4x4611686018427387904x4xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                             %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' recv has more elements than an index can count (memref<4x4611686018427387904x4xf32, #ccl.window>)}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<4x4611686018427387904x4xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<4x4611686018427387904x4xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// Each rank owns recv.shape[0] / P rows of every peer's recv.
func.func @rows_not_multiple(%d: memref<10x2xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                             %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' recv has 10 rows, not a multiple of the 4 ranks}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<10x2xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<10x2xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

func.func @signal_rank(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                       %sig: memref<16xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' signal must be memref<P x S x i32, #ccl.window>, got memref<16xi32, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<16xi32, #ccl.window>
  return
}

// -----

// The barriers add i32 constants into the cells (the pass used to emit an
// integer constant of the float type, which failed the verifier after it).
func.func @signal_element(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                          %sig: memref<4x4xf32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' signal must be memref<P x S x i32, #ccl.window>, got memref<4x4xf32, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xf32, #ccl.window>
  return
}

// -----

// Peers notify into the signal: it must be window-bound.
func.func @signal_not_window(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                             %sig: memref<4x4xi32>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' signal must be memref<P x S x i32, #ccl.window>, got memref<4x4xi32>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32>
  return
}

// -----

// One signal row per source rank.
func.func @signal_rows(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                       %sig: memref<8x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' signal has 8 rows, not one per rank (4)}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<8x4xi32, #ccl.window>
  return
}

// -----

// A declared signal_stride is the S of the signal operand.
func.func @stride_mismatch(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                           %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' signal_stride 8 does not match the 4 columns of the signal}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64, signal_stride = 8 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// S < B: two blocks would share a column of cells.
func.func @stride_narrow(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                         %sig: memref<4x4xi32, #ccl.window>) {
  %b = arith.constant 8 : i32
  // expected-error @+1 {{signal stride 4 is narrower than the admitted launch width 8}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 8 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  return
}

// -----

// CalAllToAllVBlocks(4, L) is 1, 2, 3 or a multiple of 4: never 6.
func.func @inadmissible(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                        %sig: memref<4x8xi32, #ccl.window>) {
  %b = arith.constant 6 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' launch width 6 is not admissible for 4 ranks: CalAllToAllVBlocks yields a width below the rank count or a positive multiple of it}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 6 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x8xi32, #ccl.window>
  return
}

// -----

// A width written by hand is read as it is (the pass used to report -1 as 0).
func.func @negative_width(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
                          %sig: memref<4x8xi32, #ccl.window>) {
  %b = arith.constant -1 : i32
  // expected-error @+1 {{'ccl.all_to_all_v' launch width -1 is not admissible: a launch width is positive}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = -1 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x8xi32, #ccl.window>
  return
}

// -----

// Every error of the run is reported, not only the first; a collective that
// could be lowered is left as it is when another one fails.
func.func @two(%d: memref<8xf32, #ccl.window>, %c: memref<4xi32, #ccl.window>,
               %sig: memref<4x4xi32, #ccl.window>, %bad: memref<4x2xi32, #ccl.window>) {
  %b = arith.constant 4 : i32
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %sig {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x4xi32, #ccl.window>
  // expected-error @+1 {{signal stride 2 is narrower than the admitted launch width 4}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b, signal %bad {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32, memref<4x2xi32, #ccl.window>
  // expected-error @+1 {{'ccl.all_to_all_v' has no signal operand: lowering synchronises on a memref<P x S x i32, #ccl.window>}}
  ccl.all_to_all_v %d, %c, %d, %c, blocks %b {launch_width = 4 : i64}
      : memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, memref<8xf32, #ccl.window>, memref<4xi32, #ccl.window>, i32
  return
}
